import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TraceEntry } from '../api-types.ts';
import { importForeign } from '../integrations/importers.ts';
import { traceTools } from '../integrations/trace-tools.ts';
import { checkResponse } from '../test-support/openapi-check.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { upload as uploadTo } from '../test-support/upload.ts';

// A merge of the same inputs and title as an earlier one answers that trace (200,
// alreadyImported) and stores nothing, as an upload of bytes imported before does.

const fixtures = path.resolve(import.meta.dirname, '../../../../fixtures');
const rankFiles = ['kineto/rank0.pt.trace.json.gz', 'kineto/rank1.pt.trace.json.gz'];

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

/** Uploads both ranks (imported anew each time: new ids, same bytes); their ids, rank 0 first. */
async function uploadRanks(): Promise<string[]> {
  const ids = [];
  for (const relative of rankFiles) {
    const bytes = await readFile(path.join(fixtures, relative));
    const reply = await uploadTo<TraceEntry>(t.base, bytes, path.basename(relative));
    expect(reply.status).toBe(201);
    ids.push(reply.body.id);
  }
  return ids;
}

interface MergeReply {
  readonly status: number;
  readonly body: TraceEntry;
  readonly location: string | null;
}

async function merge(ids: readonly string[], title?: string): Promise<MergeReply> {
  const response = await fetch(`${t.base}/api/imports/merge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(title === undefined ? { ids } : { ids, title }),
  });
  const parsed: unknown = await response.json();
  checkResponse('POST', '/api/imports/merge', response.status, parsed);
  return {
    status: response.status,
    body: parsed as TraceEntry,
    location: response.headers.get('location'),
  };
}

async function listedIds(): Promise<string[]> {
  const list = (await t.api('GET', '/api/traces', '/api/traces')).body as TraceEntry[];
  return list.map((e) => e.id);
}

describe('POST /api/imports/merge of the same inputs again', () => {
  it('answers the earlier merge (200, alreadyImported) and lists nothing new', async () => {
    const [rank0, rank1] = await uploadRanks();
    const first = await merge([rank0!, rank1!], 'gloo job');
    expect(first.status).toBe(201);
    expect(first.body.alreadyImported).toBeUndefined();
    expect(first.body.mergeKey).toMatch(/^[0-9a-f]{64}$/);
    const listed = await listedIds();

    const again = await merge([rank0!, rank1!], 'gloo job');
    expect(again.status).toBe(200);
    expect(again.location).toBe(`/api/traces/${first.body.id}`);
    expect(again.body).toEqual({ ...first.body, alreadyImported: true });
    // The same pair the other way round shows the same timeline (groups go by rank).
    const reversed = await merge([rank1!, rank0!], 'gloo job');
    expect(reversed.status).toBe(200);
    expect(reversed.body.id).toBe(first.body.id);
    expect(await listedIds()).toEqual(listed);
  });

  it('answers the earlier merge for the same files uploaded again under new ids', async () => {
    const first = await merge(await uploadRanks());
    expect(first.status).toBe(201);
    const [rank0, rank1] = await uploadRanks();
    expect([rank0, rank1]).not.toContain(first.body.id);
    const listed = await listedIds();
    const again = await merge([rank0!, rank1!]);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, alreadyImported: true });
    expect(await listedIds()).toEqual(listed);
  });

  it('makes a new merge for another title (or none), beside the earlier one', async () => {
    const ids = await uploadRanks();
    const named = await merge(ids, 'named once');
    const renamed = await merge(ids, 'named twice');
    // Untitled, these files were merged by the test before (whichever runs first makes it).
    const untitled = await merge(ids);
    expect([named.status, renamed.status]).toEqual([201, 201]);
    expect(new Set([named.body.id, renamed.body.id, untitled.body.id]).size).toBe(3);
    expect(renamed.body.title).toBe('named twice');
    expect(untitled.body.title).toMatch(/^2 ranks: /);
    // Each is still the answer to its own title.
    expect((await merge(ids, 'named once')).body.id).toBe(named.body.id);
    expect((await merge(ids)).body.id).toBe(untitled.body.id);
    const listed = await t.api('GET', `/api/traces/${named.body.id}`, '/api/traces/{id}');
    expect(listed.body).toMatchObject({ title: 'named once' });
  });

  it('makes one trace when the same merge is asked for twice at once', async () => {
    const ids = await uploadRanks();
    const before = await listedIds();
    const both = await Promise.all([merge(ids, 'at once'), merge(ids, 'at once')]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(both[0].body.id).toBe(both[1].body.id);
    const after = await listedIds();
    expect(after).toHaveLength(before.length + 1);
    expect(after).toContain(both[0].body.id);
  });

  it('merges anew once the earlier merge is deleted', async () => {
    const ids = await uploadRanks();
    const first = await merge(ids, 'deleted later');
    expect((await fetch(`${t.base}/api/traces/${first.body.id}`, { method: 'DELETE' })).ok).toBe(
      true,
    );
    const again = await merge(ids, 'deleted later');
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
  });

  it('still answers the earlier merge after a restart', async () => {
    const ids = await uploadRanks();
    const first = await merge(ids, 'kept across a restart');
    t = await t.restart();
    const listed = await listedIds();
    const again = await merge(ids, 'kept across a restart');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, alreadyImported: true });
    expect(await listedIds()).toEqual(listed);
  });
});
