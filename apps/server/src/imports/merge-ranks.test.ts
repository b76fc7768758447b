import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadTrace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEntry } from '../api-types.ts';
import { importForeign } from '../integrations/importers.ts';
import { traceTools } from '../integrations/trace-tools.ts';
import { checkResponse } from '../test-support/openapi-check.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { upload as uploadTo } from '../test-support/upload.ts';

const fixtures = path.resolve(import.meta.dirname, '../../../../fixtures');

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    importForeign,
    tools: traceTools(),
    limits: { uploadBytes: 64 << 20 },
  });
});

afterAll(async () => {
  await t.close();
});

async function upload(relative: string): Promise<TraceEntry> {
  const file = path.join(fixtures, relative);
  const reply = await uploadTo<TraceEntry>(t.base, await readFile(file), path.basename(relative));
  expect(reply.status).toBe(201);
  return reply.body;
}

async function merge(body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${t.base}/api/imports/merge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const parsed: unknown = await response.json();
  checkResponse('POST', '/api/imports/merge', response.status, parsed);
  return { status: response.status, body: parsed };
}

describe('POST /api/imports/merge', () => {
  it('stores the uploaded gloo pair as one trace with a group per rank', async () => {
    const rank1 = await upload('kineto/rank1.pt.trace.json.gz');
    const rank0 = await upload('kineto/rank0.pt.trace.json.gz');
    const r = await merge({ ids: [rank1.id, rank0.id], title: 'gloo job' });
    expect(r.status).toBe(201);
    const entry = r.body as TraceEntry;
    expect(entry).toMatchObject({ title: 'gloo job', source: 'import', format: 'chrome-trace' });
    expect(entry.opCount).toBe(rank0.opCount + rank1.opCount);
    const bytes = await fetch(`${t.base}/api/traces/${entry.id}/data`).then((x) => x.arrayBuffer());
    const trace = loadTrace(new Uint8Array(bytes));
    expect(trace.processes.map((p) => p.rank).sort()).toEqual([0, 1]);
    const analysis = (await fetch(`${t.base}/api/traces/${entry.id}/analysis`).then((x) =>
      x.json(),
    )) as { ranks?: { ranks: { rank: number }[] } };
    expect(analysis.ranks?.ranks.map((x) => x.rank)).toEqual([0, 1]);
    // The inputs stay listed beside the merged trace.
    const list = (await fetch(`${t.base}/api/traces`).then((x) => x.json())) as TraceEntry[];
    expect(list.map((e) => e.id)).toEqual(expect.arrayContaining([rank0.id, rank1.id, entry.id]));
  });

  it('answers 422 naming the file when two traces are the same rank', async () => {
    const a = await upload('kineto/rank0.pt.trace.json.gz');
    const b = await upload('kineto/rank0.pt.trace.json.gz');
    const r = await merge({ ids: [a.id, b.id] });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      error: {
        code: 'merge-failed',
        message:
          "rank0.pt.trace.json.gz: is rank 0, and so is rank0.pt.trace.json.gz: give each rank's trace once",
      },
    });
  });

  it('names the JSON path of a bad request', async () => {
    const a = await upload('kineto/rank0.pt.trace.json.gz');
    expect((await merge({ ids: [a.id] })).body).toMatchObject({ error: { path: '$.ids' } });
    expect((await merge({ ids: [a.id, a.id] })).body).toMatchObject({
      error: { path: '$.ids[1]', message: `trace '${a.id}' is given twice` },
    });
    expect((await merge({ ids: [a.id, 'nope!'] })).body).toMatchObject({
      error: { path: '$.ids[1]' },
    });
    const missing = await merge({ ids: [a.id, 'a'.repeat(a.id.length)] });
    expect(missing.status).toBe(404);
    // Another id than a's (ids are random: a's own last letter may be 'x').
    const other = a.id.slice(0, -1) + (a.id.endsWith('x') ? 'y' : 'x');
    expect((await merge({ ids: [a.id, other], extra: 1 })).body).toMatchObject({
      error: { path: '$.extra' },
    });
  });
});
