import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveClient } from '../test-support/live-client.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { securityPolicyFor } from './security.ts';

let t: TestServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

const token = 'test-token-0123456789abcdef';

/** A GET with a chosen Host header (fetch does not let one set it). */
function getWithHost(
  port: number,
  path: string,
  host: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('security defaults', () => {
  it('needs no token on loopback and generates one for any other address', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.1.1']) {
      expect(securityPolicyFor(host)).toEqual({ loopbackOnly: true });
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.20']) {
      const policy = securityPolicyFor(host);
      expect(policy.loopbackOnly).toBe(false);
      expect(policy.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(securityPolicyFor(host).token).not.toBe(policy.token);
    }
    expect(securityPolicyFor('0.0.0.0', token)).toEqual({ loopbackOnly: false, token });
  });

  it('requires the token on the API and the live channel when one is set, but not on health', async () => {
    t = await startTestServer({ token });
    expect(t.server.url).toBe(`http://127.0.0.1:${t.server.port}/?token=${token}`);
    const health = await fetch(`${t.base}/api/health`);
    expect(await health.json()).toMatchObject({ auth: 'token' });
    const refused = await t.api('GET', '/api/traces', '/api/traces');
    expect(refused).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
    const wrong = await fetch(`${t.base}/api/traces`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
    const bearer = await fetch(`${t.base}/api/traces`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(bearer.status).toBe(200);
    await expect(LiveClient.connect(t.liveUrl)).rejects.toThrow('HTTP 401');
    const live = await LiveClient.connect(`${t.liveUrl}?token=${token}`);
    await live.close();
  });

  it('trades the token in the printed URL for an HttpOnly cookie', async () => {
    t = await startTestServer({ token });
    const opened = await fetch(`${t.base}/?token=${token}`, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/');
    const cookie = opened.headers.get('set-cookie') ?? '';
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const withCookie = await fetch(`${t.base}/api/traces`, {
      headers: { cookie: cookie.split(';')[0]! },
    });
    expect(withCookie.status).toBe(200);
  });

  it('refuses requests whose Host is not a loopback name (DNS rebinding)', async () => {
    t = await startTestServer();
    const rebound = await getWithHost(t.server.port, '/api/traces', 'attacker.example');
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: 'bad-host' } });
    const local = await getWithHost(t.server.port, '/api/traces', `localhost:${t.server.port}`);
    expect(local.status).toBe(200);
  });

  it('refuses state changes from another origin', async () => {
    t = await startTestServer();
    const response = await fetch(`${t.base}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ workload: { name: 'w' } }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'bad-origin' } });
    const sameOrigin = await fetch(`${t.base}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: t.base },
      body: JSON.stringify({ workload: { name: 'w' } }),
    });
    expect(sameOrigin.status).toBe(202);
  });

  it('sends no-sniff and framing headers on every response', async () => {
    t = await startTestServer();
    const response = await fetch(`${t.base}/api/traces/nosuch/data`);
    expect(response.status).toBe(404);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-powered-by')).toBeNull();
  });
});
