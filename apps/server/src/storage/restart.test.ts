import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Trace, loadTrace, saveTrace } from '@streamscope/trace';
import { LiveClient } from '../test-support/live-client.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { MetadataDb } from './metadata-db.ts';

let t: TestServer | undefined;

afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Entry {
  readonly id: string;
  readonly status: string;
  readonly source: string;
  readonly reason?: string;
  readonly opCount: number;
}

async function list(server: TestServer): Promise<Entry[]> {
  return (await server.api('GET', '/api/traces', '/api/traces')).body as Entry[];
}

async function opCountOf(server: TestServer, id: string): Promise<number> {
  const response = await fetch(`${server.base}/api/traces/${id}/data`);
  expect(response.status).toBe(200);
  return loadTrace(new Uint8Array(await response.arrayBuffer())).ops.count;
}

describe('storage across restarts', () => {
  it('lists and opens every finished run and import after a restart, and resumes a stored run', async () => {
    t = await startTestServer();
    const run = await t.api('POST', '/api/runs', '/api/runs', { workload: { name: 'kept' } });
    const runId = (run.body as Entry).id;
    const handle = await t.backends.sim.nextRun();
    const watcher = await LiveClient.connect(t.liveUrl);
    watcher.send({ type: 'subscribe', runId });
    handle.addOps(40);
    await watcher.until((c) => c.trace.ops.count === 40);
    const seenSeqs = watcher.seqs.length;
    await watcher.close();
    handle.addOps(40);
    handle.finish();
    const imported = await fetch(`${t.base}/api/imports?filename=x.sstrace`, {
      method: 'PUT',
      body: saveTrace(new Trace({ title: 'imp' })),
    });
    const importId = ((await imported.json()) as Entry).id;
    for (;;) {
      if ((await list(t)).find((e) => e.id === runId)?.status === 'finished') {
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }

    t = await t.restart();
    const entries = await list(t);
    expect(entries.map((e) => [e.id, e.status]).sort()).toEqual(
      [
        [importId, 'imported'],
        [runId, 'finished'],
      ].sort(),
    );
    expect(await opCountOf(t, runId)).toBe(80);
    expect(await opCountOf(t, importId)).toBe(0);
    // A client that dropped before the restart resumes exactly where it stopped.
    const resumed = await LiveClient.connect(t.liveUrl, { decoder: watcher.decoder });
    resumed.send({ type: 'subscribe', runId, fromSeq: seenSeqs });
    await resumed.untilMessage('finished');
    expect(resumed.seqs[0]).toBe(seenSeqs);
    expect(resumed.trace.ops.count).toBe(80);
    await resumed.close();
  });

  it('stores the partial trace of a run cut short by a shutdown, as cancelled', async () => {
    t = await startTestServer();
    const run = await t.api('POST', '/api/runs', '/api/runs', { workload: { name: 'cut' } });
    const runId = (run.body as Entry).id;
    const handle = await t.backends.sim.nextRun();
    handle.addOps(25);
    t = await t.restart();
    const entries = await list(t);
    expect(entries).toMatchObject([{ id: runId, status: 'cancelled', opCount: 25 }]);
    expect(await opCountOf(t, runId)).toBe(25);
  });

  it('recovers from a crash: unfinished runs fail, half-written files vanish, orphaned traces return', async () => {
    t = await startTestServer();
    const dataDir = t.dataDir;
    await t.server.close();
    // What a crash can leave: a row of a running run, an upload being received, a temp file
    // being renamed, a trace file whose row was never written, and a row whose file is gone.
    const { db } = await MetadataDb.open(path.join(dataDir, 'streamscope.db'));
    const base = {
      source: 'run',
      title: 't',
      createdAt: new Date().toISOString(),
      opCount: 0,
      spanNs: 0,
      format: 'streamscope-sim',
    } as const;
    db.insert({ ...base, id: 'was-running', status: 'running' });
    db.insert({ ...base, id: 'lost-file', status: 'finished' });
    await db.close();
    await writeFile(path.join(dataDir, 'uploads', 'abc.part'), 'half an upload');
    await writeFile(path.join(dataDir, 'traces', 'tmpone.sstrace.0a1b.tmp'), 'half a trace');
    await writeFile(path.join(dataDir, 'traces', 'gone1.frames'), new Uint8Array(8));
    const orphan = new Trace({ title: 'orphan', sourceFormat: 'nsys-json' });
    await writeFile(path.join(dataDir, 'traces', 'orphan1.sstrace'), saveTrace(orphan));

    t = await startTestServer({}, dataDir);
    expect(t.server.notes).toHaveLength(3);
    const entries = await list(t);
    expect(entries.map((e) => [e.id, e.status, e.source]).sort()).toEqual([
      ['orphan1', 'imported', 'import'],
      ['was-running', 'failed', 'run'],
    ]);
    expect(entries.find((e) => e.id === 'was-running')?.reason).toBe(
      'the server stopped before this run ended',
    );
    expect(await readdir(path.join(dataDir, 'uploads'))).toEqual([]);
    expect((await readdir(path.join(dataDir, 'traces'))).sort()).toEqual(['orphan1.sstrace']);
  });

  it('sets an unreadable database aside and rebuilds the list from the trace files', async () => {
    t = await startTestServer();
    const imported = await fetch(`${t.base}/api/imports?filename=x.sstrace`, {
      method: 'PUT',
      body: saveTrace(new Trace({ title: 'imp' })),
    });
    expect(imported.status).toBe(201);
    const dataDir = t.dataDir;
    await t.server.close();
    await writeFile(path.join(dataDir, 'streamscope.db'), 'this is not sqlite');
    t = await startTestServer({}, dataDir);
    expect(t.server.notes[0]).toMatch(/metadata database was unreadable/);
    expect((await list(t)).map((e) => e.status)).toEqual(['imported']);
  });
});
