import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { exportChromeTrace, exportTestTrace, importTrace } from '@streamscope/importers';
import type { Trace } from '@streamscope/trace';
import { loadTrace, saveTrace } from '@streamscope/trace';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { traceTools } from '../integrations/trace-tools.ts';
import type { TestServer } from '../test-support/test-server.ts';
import { startTestServer } from '../test-support/test-server.ts';
import { runImportInWorker, ServerWorkers } from './server-workers.ts';
import { WorkerPool } from './worker-pool.ts';
import { storeAsImport } from '../test-support/stored-trace.ts';

let t: TestServer | undefined;
let pool: WorkerPool | undefined;

afterEach(async () => {
  await t?.close();
  await pool?.close();
  t = undefined;
  pool = undefined;
});

/** A server whose analysis and export run on a pool of its own. */
async function serverWithPool(
  options: ConstructorParameters<typeof WorkerPool>[0],
): Promise<TestServer> {
  pool = new WorkerPool(options);
  t = await startTestServer({ tools: traceTools(new ServerWorkers(pool)) });
  return t;
}

/** Stores a trace as an import would, and returns its id. */
async function store(server: TestServer, trace: Trace, id: string): Promise<string> {
  return storeAsImport(server.server.store, id, trace);
}

async function snapshotsLeft(server: TestServer): Promise<string[]> {
  return (await readdir(server.server.store.tracesDir)).filter((n) => n.includes('.snapshot-'));
}

// Worker threads start in about a second on a loaded machine (tsx compiles their sources).
describe('analysis and export in worker threads', { timeout: 120_000 }, () => {
  it("streams a stored trace's export byte for byte as the exporter writes it", async () => {
    const server = await serverWithPool({ size: 2 });
    const trace = exportTestTrace(3000, 120);
    const id = await store(server, trace, 'stored1');
    const response = await fetch(`${server.base}/api/traces/${id}/export?format=chrome`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="${id}.trace.json"`,
    );
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const stored = loadTrace(await readFile(server.server.store.tracePath(id)));
    expect(await response.text()).toBe(exportChromeTrace(stored));
  });

  it('exports and analyzes a live run as far as it has got, from a snapshot it then removes', async () => {
    const server = await serverWithPool({ size: 2 });
    const posted = await server.api('POST', '/api/runs', '/api/runs', { workload: { name: 'w' } });
    const id = (posted.body as { id: string }).id;
    const run = await server.backends.sim.nextRun();
    run.addOps(30);
    const spans = async (): Promise<number> => {
      const response = await fetch(`${server.base}/api/traces/${id}/export?format=chrome`);
      const json = (await response.json()) as { traceEvents: { ph: string }[] };
      return json.traceEvents.filter((e) => e.ph === 'X').length;
    };
    // Frames reach the run's log on the next turn of its flusher.
    await vi.waitFor(async () => expect(await spans()).toBe(30), { timeout: 60_000 });
    const analysis = await server.api(
      'GET',
      `/api/traces/${id}/analysis`,
      '/api/traces/{id}/analysis',
    );
    expect(analysis.status).toBe(200);
    expect(analysis.body).toHaveProperty('metrics');
    // Each snapshot is removed once its worker is done with it.
    await vi.waitFor(async () => expect(await snapshotsLeft(server)).toEqual([]), {
      timeout: 60_000,
    });
    run.addOps(12);
    run.finish();
    await vi.waitFor(async () => expect(await spans()).toBe(42), { timeout: 60_000 });
  });

  it('answers 503 busy when every worker is taken and the queue is full, and serves again after', async () => {
    // Never terminated for ignoring an abort here: the export must stop when told.
    const server = await serverWithPool({ size: 1, maxQueued: 0, abortGraceMs: 600_000 });
    // About 26 MB of JSON: more than the socket buffers hold while nobody reads.
    const id = await store(server, exportTestTrace(80_000, 400), 'big1');
    const reader = new AbortController();
    const held = await fetch(`${server.base}/api/traces/${id}/export?format=chrome`, {
      signal: reader.signal,
    });
    expect(held.status).toBe(200);
    const busy = await server.api('GET', `/api/traces/${id}/analysis`, '/api/traces/{id}/analysis');
    expect(busy).toEqual({
      status: 503,
      body: {
        error: {
          code: 'busy',
          message:
            'all 1 worker threads are busy and 0 tasks already wait for one; try again shortly',
        },
      },
    });
    // The client leaves: its export's worker stops and takes work again.
    reader.abort();
    await vi.waitFor(() => expect(pool!.stats().busy).toBe(0), { timeout: 60_000 });
    const analysis = await server.api(
      'GET',
      `/api/traces/${id}/analysis`,
      '/api/traces/{id}/analysis',
    );
    expect(analysis.status).toBe(200);
  });

  // About 570 MB of JSON over loopback: seconds on a quiet core, far more on a loaded one.
  it(
    'streams an export longer than the longest string V8 holds',
    { timeout: 300_000 },
    async () => {
      const server = await serverWithPool({ size: 1 });
      const trace = exportTestTrace(260_000, 4000);
      const id = await store(server, trace, 'huge1');
      const response = await fetch(`${server.base}/api/traces/${id}/export?format=chrome`);
      expect(response.status).toBe(200);
      let bytes = 0;
      let newlines = 0;
      let head = '';
      let tail: Uint8Array = new Uint8Array(0);
      for await (const chunk of response.body! as AsyncIterable<Uint8Array>) {
        if (head === '') {
          head = Buffer.from(chunk).toString('utf8', 0, 40);
        }
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) {
          newlines++;
        }
        tail = chunk;
      }
      // V8's longest string is 2^29 − 24 characters: the whole-string export threw at this size.
      expect(bytes).toBeGreaterThan(2 ** 29);
      expect(head).toBe('{"displayTimeUnit":"ns","otherData":{"pr');
      expect(Buffer.from(tail).toString('utf8').endsWith('\n]}\n')).toBe(true);
      // One line per event, and the opening and closing lines.
      const events =
        2 * trace.tracks.length + 2 + trace.ops.count + trace.ranges.count + 2 * trace.flows.count;
      expect(newlines).toBe(events + 2);
    },
  );
});

describe('runImportInWorker', { timeout: 120_000 }, () => {
  const fixture = path.resolve(
    import.meta.dirname,
    '../../../../fixtures/nsys/2025.3.1/train.sqlite',
  );
  let out = '';
  beforeAll(async () => {
    out = await mkdtemp(path.join(os.tmpdir(), 'worker-import-'));
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it('imports as the importers do in-process, relaying progress and SQLite stages', async () => {
    const progress: number[] = [];
    const stages: string[] = [];
    const result = await runImportInWorker(fixture, {
      fileName: 'train.sqlite',
      maxBytes: 1 << 30,
      signal: new AbortController().signal,
      outBase: path.join(out, 'train'),
      onProgress: (bytes) => progress.push(bytes),
      onStage: (stage) => stages.push(stage),
    });
    const direct = await importTrace(await readFile(fixture), { fileName: 'train.sqlite' });
    // What storing needs, without decoding: the stored form, written where asked, and the
    // entry's fields.
    const stored = await readFile(result.tracePath);
    expect(result.tracePath).toBe(path.join(out, 'train.sstrace'));
    expect(stored.equals(saveTrace(direct.trace))).toBe(true);
    expect(result.fileBytes).toBe(stored.length);
    expect(result).toMatchObject({
      opCount: direct.trace.ops.count,
      spanNs: direct.trace.spanNs(),
      title: direct.trace.meta.title,
      sourceFormat: 'nsys-sqlite',
    });
    expect(loadTrace(stored).ops.count).toBe(direct.trace.ops.count);
    expect(result.warnings).toEqual(direct.warnings);
    expect(progress.at(-1)).toBe((await readFile(fixture)).length);
    expect(stages.length).toBeGreaterThan(0);
  });

  it("fails with the importer's precise error, and stops when aborted", async () => {
    const broken = path.resolve(fixture, '../../../broken/missing-table.sqlite');
    await expect(
      runImportInWorker(broken, {
        fileName: 'missing-table.sqlite',
        maxBytes: 1 << 30,
        signal: new AbortController().signal,
        outBase: path.join(out, 'broken'),
        onProgress: () => undefined,
      }),
    ).rejects.toMatchObject({ status: 422, code: 'import-failed' });
    const aborter = new AbortController();
    const cancelled = runImportInWorker(fixture, {
      fileName: 'train.sqlite',
      maxBytes: 1 << 30,
      signal: aborter.signal,
      outBase: path.join(out, 'cancelled'),
      onProgress: () => aborter.abort(),
    });
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' });
    // Neither left a file behind (nor a part of one).
    expect((await readdir(out)).filter((name) => !name.startsWith('train'))).toEqual([]);
  });
});
