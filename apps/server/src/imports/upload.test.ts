import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Trace } from '@streamscope/trace';
import { loadTrace, saveTrace } from '@streamscope/trace';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import type { UploadReply } from '../test-support/upload.ts';
import { upload as uploadTo } from '../test-support/upload.ts';
import { kernelTrace } from '../test-support/kernel-trace.ts';

let t: TestServer;

beforeEach(async () => {
  t = await startTestServer({ limits: { uploadBytes: 64 * 1024 } });
});

afterEach(async () => {
  await t.close();
});

function sampleTrace(opCount: number): Trace {
  return kernelTrace(opCount);
}

function upload(
  body: Uint8Array | string,
  query: string,
  contentType = 'application/octet-stream',
): Promise<UploadReply> {
  return uploadTo(t.base, body, '', { rawQuery: query, contentType });
}

async function listed(): Promise<number> {
  return ((await t.api('GET', '/api/traces', '/api/traces')).body as unknown[]).length;
}

describe('uploads', () => {
  it('imports a .sstrace, lists it, and serves it back byte-for-byte equivalent', async () => {
    const bytes = saveTrace(sampleTrace(100));
    const response = await upload(bytes, 'filename=sample.sstrace&uploadId=upload-0001');
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      source: 'import',
      status: 'imported',
      title: 'sample',
      fileName: 'sample.sstrace',
      opCount: 100,
      format: 'streamscope-sim',
    });
    const id = (response.body as { id: string }).id;
    const back = await fetch(`${t.base}/api/traces/${id}/data`);
    expect(back.headers.get('content-disposition')).toContain('attachment');
    expect(loadTrace(new Uint8Array(await back.arrayBuffer())).ops.count).toBe(100);
    const progress = await t.api(
      'GET',
      '/api/imports/upload-0001/progress',
      '/api/imports/{uploadId}/progress',
    );
    expect(progress.body).toMatchObject({
      phase: 'done',
      receivedBytes: bytes.length,
      traceId: id,
    });
  });

  it('streams an upload to disk whatever its Content-Type says (a browser sends .json as JSON)', async () => {
    const bytes = saveTrace(sampleTrace(10));
    const asJson = await upload(bytes, 'filename=sample.json', 'application/json');
    expect(asJson).toMatchObject({ status: 201, body: { opCount: 10 } });
  });

  it('refuses an upload over the size limit and keeps nothing of it', async () => {
    const big = saveTrace(sampleTrace(20_000));
    expect(big.length).toBeGreaterThan(64 * 1024);
    const response = await upload(big, 'filename=big.sstrace');
    expect(response).toMatchObject({ status: 413, body: { error: { code: 'too-large' } } });
    expect(await listed()).toBe(0);
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('refuses a truncated or corrupt trace with the codec error, and lists nothing', async () => {
    const bytes = saveTrace(sampleTrace(100));
    const truncated = await upload(bytes.subarray(0, bytes.length - 5), 'filename=cut.sstrace');
    expect(truncated.status).toBe(422);
    expect((truncated.body as { error: { message: string } }).error.message).toMatch(
      /^cut\.sstrace: .*truncated/,
    );
    const corrupt = Uint8Array.from(bytes);
    corrupt[20] = 0xff;
    corrupt[21] = 0xff;
    expect((await upload(corrupt, 'filename=bad.sstrace')).status).toBe(422);
    expect(await listed()).toBe(0);
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
  });

  it('cancels an upload whose client went away halfway, lists nothing and removes what it received', async () => {
    const bytes = saveTrace(sampleTrace(2000));
    const req = request({
      host: '127.0.0.1',
      port: t.server.port,
      method: 'PUT',
      path: '/api/imports?filename=half.sstrace&uploadId=half-upload-1',
      headers: { 'content-length': String(bytes.length) },
    });
    req.on('error', () => undefined);
    req.write(bytes.subarray(0, bytes.length >> 1));
    for (;;) {
      const progress = await t.api(
        'GET',
        '/api/imports/half-upload-1/progress',
        '/api/imports/{uploadId}/progress',
      );
      if (
        progress.status === 200 &&
        (progress.body as { receivedBytes: number }).receivedBytes > 0
      ) {
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    req.destroy();
    let final: { phase: string; error?: string };
    for (;;) {
      const progress = await t.api(
        'GET',
        '/api/imports/half-upload-1/progress',
        '/api/imports/{uploadId}/progress',
      );
      final = progress.body as { phase: string; error?: string };
      if (final.phase !== 'receiving') {
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    // openapi.yaml: a client that disconnects cancels its import (it did not fail).
    expect(final).toMatchObject({
      phase: 'cancelled',
      error: "the import of 'half.sstrace' was cancelled: the client disconnected",
    });
    expect(await listed()).toBe(0);
    expect(await readdir(path.join(t.dataDir, 'uploads'))).toEqual([]);
    expect(await readdir(path.join(t.dataDir, 'traces'))).toEqual([]);
  });

  it('answers bad upload requests precisely', async () => {
    expect(await upload('x', '')).toMatchObject({
      status: 400,
      body: { error: { path: 'filename' } },
    });
    expect(await upload('x', 'filename=../etc/passwd')).toMatchObject({
      status: 400,
      body: { error: { code: 'bad-filename' } },
    });
    expect(await upload('x', 'filename=a&uploadId=no')).toMatchObject({
      status: 400,
      body: { error: { path: 'uploadId' } },
    });
    expect(await upload('', 'filename=empty.json')).toMatchObject({
      status: 400,
      body: { error: { code: 'empty-upload' } },
    });
    const html = await upload('<html><script>alert(1)</script></html>', 'filename=x.html');
    expect(html).toMatchObject({ status: 415, body: { error: { code: 'unsupported-format' } } });
    const progress = await t.api(
      'GET',
      '/api/imports/unknown-upload/progress',
      '/api/imports/{uploadId}/progress',
    );
    expect(progress.status).toBe(404);
  });
});
