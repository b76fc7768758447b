import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';

let t: TestServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function postRun(server: TestServer, encoding: string, body: Uint8Array) {
  const response = await fetch(`${server.base}/api/workloads/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': encoding },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { error?: { code: string; message: string } },
  };
}

describe('compressed JSON bodies', () => {
  it('reads gzip, deflate and br bodies, and answers a broken one with 400 naming the coding', async () => {
    t = await startTestServer();
    const json = Buffer.from(JSON.stringify({ workload: { name: 'w' } }));
    for (const [encoding, packed] of [
      ['gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
    ] as const) {
      expect((await postRun(t, encoding, packed)).status).toBe(200);
      const broken = await postRun(t, encoding, Buffer.from('definitely not compressed'));
      expect(broken.status).toBe(400);
      expect(broken.body.error?.code).toBe('bad-content-encoding');
      expect(broken.body.error?.message).toContain(encoding);
    }
    const unknown = await postRun(t, 'zstd', json);
    expect(unknown.status).toBe(415);
    expect(unknown.body.error?.message).toContain('zstd');
    expect(t.server.url).toContain('http');
  });
});
