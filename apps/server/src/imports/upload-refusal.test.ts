import type { ClientRequest, IncomingMessage } from 'node:http';
import { request } from 'node:http';
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultImportBytes, defaultLimits } from '../config.ts';
import { checkResponse } from '../test-support/openapi-check.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';

const limitBytes = 1 << 20;
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ limits: { uploadBytes: limitBytes } });
});

afterAll(async () => {
  await t.close();
});

interface Outcome {
  readonly status: number;
  readonly body: { error?: { code: string; message: string } };
  /** Whether the server said `100 Continue`. */
  readonly continued: boolean;
  /** Bytes of the body the client wrote before the answer came. */
  readonly sentBytes: number;
}

/**
 * A PUT /api/imports as curl sends one: the body in 64 KiB pieces, each after the last was
 * taken (never before `100 Continue` when it asked for that), until the answer comes. A reset
 * or broken pipe before the answer rejects.
 */
function put(headers: Record<string, string>, bodyBytes: number): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let continued = false;
    let sentBytes = 0;
    let answered = false;
    const piece = Buffer.alloc(64 * 1024, 0x20);
    const req: ClientRequest = request(`${t.base}/api/imports?filename=big.json`, {
      method: 'PUT',
      headers,
      agent: false,
    });
    const send = (): void => {
      while (!answered && sentBytes < bodyBytes) {
        sentBytes += piece.length;
        if (!req.write(piece)) {
          req.once('drain', send);
          return;
        }
      }
      if (!answered) {
        req.end();
      }
    };
    req.on('continue', () => {
      continued = true;
      send();
    });
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Outcome['body'];
        resolve({ status: res.statusCode ?? 0, body, continued, sentBytes });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      if (!answered) {
        reject(error);
      }
    });
    if (headers['expect'] === undefined) {
      send();
    } else {
      req.flushHeaders();
    }
  });
}

async function nothingKept(): Promise<void> {
  expect((await t.api('GET', '/api/traces', '/api/traces')).body).toEqual([]);
  expect(await readdir(t.server.store.uploadsDir)).toEqual([]);
}

describe('an upload over the limit', () => {
  it('is refused by its Content-Length before 100 Continue, so its body is never sent', async () => {
    const declared = 64 * limitBytes;
    const outcome = await put(
      { expect: '100-continue', 'content-length': String(declared) },
      declared,
    );
    checkResponse('PUT', '/api/imports', outcome.status, outcome.body);
    expect(outcome).toMatchObject({ status: 413, continued: false, sentBytes: 0 });
    expect(outcome.body.error?.message).toBe(
      `this upload declares ${declared} bytes, but uploads are limited to ${limitBytes} bytes (1 MiB); start the server with --max-upload-mb N (limits.uploadBytes) to raise it`,
    );
    await nothingKept();
  });

  it('answers a client that sends its body anyway with the 413, not a reset', async () => {
    // More than loopback's socket buffers hold: the client is still writing when refused.
    const declared = 32 * limitBytes;
    const outcome = await put({ 'content-length': String(declared) }, declared);
    expect(outcome).toMatchObject({ status: 413, body: { error: { code: 'too-large' } } });
    await nothingKept();
  });

  it('answers with the 413 when a body without a length grows past the limit', async () => {
    const outcome = await put({ 'transfer-encoding': 'chunked' }, 32 * limitBytes);
    expect(outcome).toMatchObject({ status: 413, body: { error: { code: 'too-large' } } });
    expect(outcome.body.error?.message).toMatch(/--max-upload-mb N/);
    // Refused once past the limit: the rest of the body went nowhere.
    await nothingKept();
  });

  it("is by default none, as the CLI import's (memory is limited by the ops kept instead)", () => {
    expect(defaultLimits.uploadBytes).toBe(defaultImportBytes);
    expect(defaultImportBytes).toBe(Number.POSITIVE_INFINITY);
  });
});
