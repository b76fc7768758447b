import { request } from 'node:http';
import { Trace, saveTrace } from '@streamscope/trace';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveClient } from '../test-support/live-client.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';

// Every guarded request of the server, sent in many spellings of its path. Express once matched
// routes case-insensitively while the guard tested a lower-case prefix, so `/API/traces` was
// served without the token: these tests fail if any spelling reaches a route unguarded.

let t: TestServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

const token = 'spelling-test-token-0123456789';

interface Reply {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

/** A raw request: the path goes on the wire exactly as written (fetch would normalize it). */
function send(
  port: number,
  method: string,
  rawPath: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path: rawPath, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The API's routes, with ids filled in (`ID` becomes a stored trace's id). */
const routes: readonly (readonly [method: string, path: string])[] = [
  ['GET', '/api/health'],
  ['GET', '/api/backends'],
  ['GET', '/api/devices'],
  ['GET', '/api/presets'],
  ['POST', '/api/workloads/validate'],
  ['POST', '/api/runs'],
  ['POST', '/api/runs/ID/cancel'],
  ['GET', '/api/traces'],
  ['GET', '/api/traces/ID'],
  ['GET', '/api/traces/ID/data'],
  ['GET', '/api/traces/ID/analysis'],
  ['GET', '/api/traces/ID/export?format=chrome'],
  ['DELETE', '/api/traces/ID'],
  ['PUT', '/api/imports?filename=a.sstrace'],
  ['GET', '/api/imports/u1/progress'],
  ['POST', '/api/imports/u1/cancel'],
];

/** Other spellings of one path: letter case, a trailing slash, doubled slashes, %-escapes. */
function spellings(path: string): string[] {
  const [pathname = '', query] = path.split('?');
  const q = query === undefined ? '' : `?${query}`;
  const rest = pathname.slice('/api'.length);
  const upperLast = pathname.replace(/[a-z]+$/, (word) => word.toUpperCase());
  const all = [
    `/API${rest}${q}`,
    `/Api${rest}${q}`,
    `/aPi${rest}${q}`,
    `${upperLast}${q}`,
    `${pathname}/${q}`,
    `/api/${rest}${q}`,
    `//api${rest}${q}`,
    `/%61pi${rest}${q}`,
    `/%41PI${rest}${q}`,
    `/api${rest.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)}${q}`,
    `/api/.${rest}${q}`,
  ];
  return all.filter((spelling) => spelling !== path);
}

const jsonHeaders = { 'content-type': 'application/json' };

/** A JSON body for methods that carry one (Node itself refuses a GET or DELETE with one). */
function bodyFor(method: string): string | undefined {
  return method === 'POST' || method === 'PUT' ? '{}' : undefined;
}

async function storeOneTrace(server: TestServer, headers: Record<string, string>): Promise<string> {
  const stored = await send(
    server.server.port,
    'PUT',
    '/api/imports?filename=kept.sstrace',
    headers,
    Buffer.from(saveTrace(new Trace({ title: 'kept' }))),
  );
  expect(stored.status).toBe(201);
  return (JSON.parse(stored.body) as { id: string }).id;
}

async function listedIds(server: TestServer, headers: Record<string, string>): Promise<string[]> {
  const list = await send(server.server.port, 'GET', '/api/traces', headers);
  expect(list.status).toBe(200);
  return (JSON.parse(list.body) as { id: string }[]).map((entry) => entry.id);
}

describe('the guard covers every route in every spelling', () => {
  it('answers nothing but the exact health probe without the token, in any spelling', async () => {
    t = await startTestServer({ token });
    const auth = { authorization: `Bearer ${token}` };
    const id = await storeOneTrace(t, auth);
    const port = t.server.port;
    const refusedPaths: string[] = [];
    for (const [method, template] of routes) {
      const path = template.replace('ID', id);
      const variants =
        method === 'GET' && path === '/api/health' ? spellings(path) : [path, ...spellings(path)];
      for (const variant of variants) {
        const reply = await send(port, method, variant, jsonHeaders, bodyFor(method));
        if (reply.status !== 401) {
          refusedPaths.push(`${method} ${variant} -> ${reply.status}`);
        }
      }
    }
    // Static files and the single-page fallback need it too.
    for (const path of ['/', '/index.html', '/traces/x', '/API/', '/%2e%2e/etc/passwd']) {
      const reply = await send(port, 'GET', path);
      if (reply.status !== 401) {
        refusedPaths.push(`GET ${path} -> ${reply.status}`);
      }
    }
    expect(refusedPaths).toEqual([]);
    const health = await send(port, 'GET', '/api/health');
    expect(health.status).toBe(200);
    expect(await listedIds(t, auth)).toEqual([id]);
  });

  it('reaches the API only through its exact spelling, even with the token', async () => {
    t = await startTestServer({ token });
    const auth = { authorization: `Bearer ${token}` };
    const id = await storeOneTrace(t, auth);
    const port = t.server.port;
    const answered: string[] = [];
    for (const [method, template] of routes) {
      const path = template.replace('ID', id);
      for (const variant of spellings(path)) {
        const reply = await send(
          port,
          method,
          variant,
          { ...auth, ...jsonHeaders },
          bodyFor(method),
        );
        // Outside /api only the web app answers: a GET gets the page (here "not built", 503),
        // anything else a JSON 404. No API answer comes from these spellings.
        const ok =
          (method === 'GET' && reply.status === 503 && reply.type.startsWith('text/plain')) ||
          (reply.status === 404 && reply.body.includes('"not-found"'));
        if (!ok) {
          answered.push(`${method} ${variant} -> ${reply.status} ${reply.body.slice(0, 80)}`);
        }
      }
    }
    expect(answered).toEqual([]);
    expect(await listedIds(t, auth)).toEqual([id]);
  });

  it('refuses a foreign Origin on every state change in every spelling (loopback, no token)', async () => {
    t = await startTestServer();
    const id = await storeOneTrace(t, {});
    const port = t.server.port;
    const passed: string[] = [];
    for (const [method, template] of routes) {
      if (method === 'GET') {
        continue;
      }
      const path = template.replace('ID', id);
      for (const variant of [path, ...spellings(path)]) {
        const reply = await send(
          port,
          method,
          variant,
          { origin: 'http://evil.example', ...jsonHeaders },
          bodyFor(method),
        );
        if (reply.status !== 403 || !reply.body.includes('bad-origin')) {
          passed.push(`${method} ${variant} -> ${reply.status}`);
        }
      }
    }
    expect(passed).toEqual([]);
    expect(await listedIds(t, {})).toEqual([id]);
    // The same DELETE from this server's own origin does delete.
    const own = await send(port, 'DELETE', `/api/traces/${id}`, { origin: t.base });
    expect(own.status).toBe(204);
    expect(await listedIds(t, {})).toEqual([]);
  });

  it('opens the live channel only at its exact path, with the token', async () => {
    t = await startTestServer({ token });
    const live = `ws://127.0.0.1:${t.server.port}`;
    for (const path of [
      '/api/live',
      '/API/live',
      '/api/LIVE',
      '/api/live/',
      '/api/%6cive',
      '//api/live',
    ]) {
      await expect(LiveClient.connect(`${live}${path}`)).rejects.toThrow(/HTTP (401|404)/);
      if (path !== '/api/live') {
        await expect(LiveClient.connect(`${live}${path}?token=${token}`)).rejects.toThrow(
          /HTTP 404/,
        );
      }
    }
    await expect(
      LiveClient.connect(`${live}/api/live?token=${token}`, {
        headers: { origin: 'http://evil.example' },
      }),
    ).rejects.toThrow(/HTTP 403/);
    const client = await LiveClient.connect(`${live}/api/live?token=${token}`);
    await client.close();
  });
});
