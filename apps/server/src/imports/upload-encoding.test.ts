import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveTrace } from '@streamscope/trace';
import { checkResponse } from '../test-support/openapi-check.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { kernelTrace } from '../test-support/kernel-trace.ts';

let t: TestServer;
const logged: string[] = [];

beforeAll(async () => {
  t = await startTestServer({ log: (line) => logged.push(line) });
});

afterAll(async () => {
  await t.close();
});

function tenKernels(): Uint8Array {
  return saveTrace(kernelTrace(10, { title: 'encoded', pid: 1, periodNs: 10, durNs: 5 }));
}

/** A PUT with a Content-Encoding header (fetch would not send a body it did not encode). */
function put(
  body: Uint8Array,
  contentEncoding: string,
): Promise<{ status: number; body: { error?: { code: string; message: string; path?: string } } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: t.server.port,
        method: 'PUT',
        path: '/api/imports?filename=encoded.sstrace',
        headers: { 'content-encoding': contentEncoding, 'content-length': String(body.length) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          const parsed = JSON.parse(text) as { error?: { code: string; message: string } };
          checkResponse('PUT', '/api/imports', res.statusCode!, parsed);
          resolve({ status: res.statusCode!, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const garbage = Buffer.from('this is not compressed at all, whatever the header says '.repeat(20));

describe('uploads with a Content-Encoding', () => {
  it('decodes gzip, deflate, br and a chain of them before storing the file', async () => {
    const trace = tenKernels();
    for (const [encoding, body] of [
      ['gzip', gzipSync(trace)],
      ['deflate', deflateSync(trace)],
      ['br', brotliCompressSync(trace)],
      ['gzip, br', brotliCompressSync(gzipSync(trace))],
      ['identity', trace],
    ] as const) {
      const response = await put(body, encoding);
      expect({ encoding, ...response }).toMatchObject({
        encoding,
        status: 201,
        body: { opCount: 10, title: 'encoded' },
      });
    }
  });

  it('answers 400 naming the encoding when the body is not what it claims', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const response = await put(garbage, encoding);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'bad-content-encoding',
        path: 'Content-Encoding',
      });
      expect(response.body.error!.message).toContain(`is not valid ${encoding} data`);
    }
    // A gzip body cut short is as broken as one that never was gzip.
    const cut = gzipSync(tenKernels());
    const truncated = await put(cut.subarray(0, cut.length - 12), 'gzip');
    expect(truncated.body.error).toMatchObject({ code: 'bad-content-encoding' });
    expect(logged).toEqual([]);
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('refuses an encoding it does not know with 415, naming it', async () => {
    for (const encoding of ['zstd', 'gzip, compress']) {
      const response = await put(garbage, encoding);
      expect(response.status).toBe(415);
      expect(response.body.error).toMatchObject({
        code: 'unsupported-content-encoding',
        path: 'Content-Encoding',
      });
      expect(response.body.error!.message).toContain(
        `Content-Encoding '${encoding.split(', ').at(-1)!}' is not supported`,
      );
    }
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('limits the decoded size, not only the bytes on the wire', async () => {
    await t.close();
    t = await startTestServer({ limits: { uploadBytes: 64 * 1024 } });
    const bomb = gzipSync(new Uint8Array(1 << 20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const response = await put(bomb, 'gzip');
    expect(response).toMatchObject({ status: 413, body: { error: { code: 'too-large' } } });
    expect(response.body.error!.message).toContain('--max-upload-mb');
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });
});
