import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { saveTrace } from '@streamscope/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkResponse } from '../test-support/openapi-check.ts';
import { kernelTrace } from '../test-support/kernel-trace.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';

let t: TestServer;

beforeEach(async () => {
  t = await startTestServer({ limits: { uploadBytes: 64 * 1024 } });
});

afterEach(async () => {
  await t.close();
});

interface Answer {
  readonly status: number;
  readonly body: { id: string; contentSha256?: string; alreadyImported?: boolean };
}

async function upload(body: Uint8Array, query: string, encoding?: string): Promise<Answer> {
  const response = await fetch(`${t.base}/api/imports?${query}`, {
    method: 'PUT',
    body,
    headers: {
      'content-type': 'application/octet-stream',
      ...(encoding === undefined ? {} : { 'content-encoding': encoding }),
    },
  });
  const parsed: unknown = await response.json();
  checkResponse('PUT', '/api/imports', response.status, parsed);
  return { status: response.status, body: parsed as Answer['body'] };
}

async function listed(): Promise<number> {
  return ((await t.api('GET', '/api/traces', '/api/traces')).body as unknown[]).length;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

describe('re-importing the same bytes', () => {
  it('keeps the SHA-256 of the decoded upload in the entry, the same for a gzip body', async () => {
    const bytes = saveTrace(kernelTrace(20));
    const plain = await upload(bytes, 'filename=a.sstrace');
    const zipped = await upload(gzipSync(bytes), 'filename=a.sstrace', 'gzip');
    expect(plain.body.contentSha256).toBe(sha256(bytes));
    expect(zipped.body.contentSha256).toBe(sha256(bytes));
    const stored = await t.api('GET', `/api/traces/${plain.body.id}`, '/api/traces/{id}');
    expect(stored.body).toMatchObject({ contentSha256: sha256(bytes) });
  });

  it('offers the earlier import with ifDuplicate=offer and stores nothing new', async () => {
    const bytes = saveTrace(kernelTrace(20));
    const first = await upload(bytes, 'filename=a.sstrace&ifDuplicate=offer');
    expect(first.status).toBe(201);
    expect(first.body.alreadyImported).toBeUndefined();
    const again = await upload(bytes, 'filename=renamed.sstrace&ifDuplicate=offer');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, alreadyImported: true });
    expect(await listed()).toBe(1);
  });

  it('imports the same bytes again without the option, and other bytes with it', async () => {
    const bytes = saveTrace(kernelTrace(20));
    const first = await upload(bytes, 'filename=a.sstrace');
    const copy = await upload(bytes, 'filename=a.sstrace');
    expect(copy.status).toBe(201);
    expect(copy.body.id).not.toBe(first.body.id);
    const other = await upload(saveTrace(kernelTrace(21)), 'filename=b.sstrace&ifDuplicate=offer');
    expect(other.status).toBe(201);
    expect(await listed()).toBe(3);
  });

  it('rejects an unknown ifDuplicate value, naming the parameter', async () => {
    const answer = await upload(saveTrace(kernelTrace(2)), 'filename=a.sstrace&ifDuplicate=skip');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { path: 'ifDuplicate' } });
  });
});
