import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { exportChromeTrace, exportTestTrace, importTrace } from '@streamscope/importers';
import { loadTrace, saveTrace } from '@streamscope/trace';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../http/api-error.ts';
import { workloadService } from '../integrations/workload-service.ts';
import { ServerWorkers } from './server-workers.ts';
import { analysisCost } from './task-memory.ts';
import { WorkerPool } from './worker-pool.ts';

let dir = '';
let traceFile = '';
let pools: WorkerPool[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'worker-pool-'));
  traceFile = path.join(dir, 'trace.sstrace');
  // About 1 MB of export: more chunks than the worker may send before they are read.
  await writeFile(traceFile, saveTrace(exportTestTrace(4000, 400)));
});

afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  pools = [];
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function workers(options: ConstructorParameters<typeof WorkerPool>[0]): ServerWorkers {
  const pool = new WorkerPool(options);
  pools.push(pool);
  return new ServerWorkers(pool);
}

/** This process's threads by id, with their niceness (field 19 of /proc/self/task/ID/stat). */
function threadNices(): Map<string, number> {
  const nices = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // After "pid (comm) ": state is field 3, so niceness (19) is the 17th value.
      nices.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // A thread that ended while listed.
    }
  }
  return nices;
}

/** A destination that keeps what is written to it (copied: the memory goes back to the worker). */
function sink(): { readonly out: Writable; readonly chunks: Buffer[]; text(): string } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
  return { out, chunks, text: () => Buffer.concat(chunks).toString('utf8') };
}

const stored = (): { path: string; partial: boolean } => ({ path: traceFile, partial: false });

/** A spec that expands to `ops` ops. */
function bigSpec(ops: number): unknown {
  return {
    name: 'big',
    threads: [
      {
        name: 'main',
        ops: [
          {
            op: 'repeat',
            count: ops / 1000,
            ops: [{ op: 'repeat', count: 1000, var: 'j', ops: [{ op: 'deviceSync' }] }],
          },
        ],
      },
    ],
  };
}

// Worker threads start in about a second on a loaded machine (tsx compiles their sources).
describe('WorkerPool', { timeout: 120_000 }, () => {
  it('expands a workload off the event loop: the loop keeps turning until the verdict comes', async () => {
    const service = workloadService(workers({ size: 1 }));
    let turns = 0;
    let done = false;
    const verdict = Promise.resolve(service.validate(bigSpec(1_000_000))).finally(() => {
      done = true;
    });
    // Counts event-loop turns while the worker expands a million ops (in-process, the
    // validation would return before the first turn).
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    expect(await verdict).toEqual({ ok: true });
    expect(turns).toBeGreaterThan(10);
    expect(await service.validate({ name: 'x', threads: [] })).toMatchObject({
      ok: false,
      errors: [{ path: '$.threads' }],
    });
  });

  it('runs one task per worker, queues up to its bound and refuses the next with a 503', async () => {
    const w = workers({ size: 1, maxQueued: 1 });
    // An export nobody reads holds its worker: it waits for room to send more.
    const held = await w.exportChrome(stored());
    expect(w.pool.stats()).toEqual({
      workers: 1,
      busy: 1,
      queued: 0,
      retired: 0,
      heldMemoryBytes: 0,
    });
    const waiting = w.validateWorkload(bigSpec(1000));
    expect(w.pool.stats().queued).toBe(1);
    const refused = await w.validateWorkload(bigSpec(1000)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      status: 503,
      code: 'busy',
      message: 'all 1 worker threads are busy and 1 tasks already wait for one; try again shortly',
    });
    // Writing the export out frees the worker for the task that waited.
    const written = sink();
    await held.pipeTo(written.out);
    expect(written.text()).toBe(exportChromeTrace(loadTrace(await readFile(traceFile))));
    // The head goes first, alone: it is sent before the trace is decoded.
    expect(written.chunks[0]!.toString('utf8')).toBe(
      '{"displayTimeUnit":"ns","otherData":{"producer":"streamscope","sourceFormat":"nsys-json","originNs":"0"},"traceEvents":[\n',
    );
    expect(await waiting).toEqual({ ok: true });
  });

  it('runs tasks that say their memory side by side only while their sum fits the budget', async () => {
    const trace = loadTrace(await readFile(traceFile));
    const opCount = trace.ops.count;
    const ref = { path: traceFile, partial: false, opCount };
    const one = opCount * analysisCost.bytesPerOp + trace.ranges.count * analysisCost.bytesPerRange;
    // Room for one analysis of this trace, not two.
    const w = workers({ size: 3, memoryBudgetBytes: 1.5 * one });
    // Each analysis reads its trace's counts from the file's end before it asks for a worker.
    const stats = (expected: object) =>
      vi.waitFor(() => expect(w.pool.stats()).toMatchObject(expected), { interval: 1 });
    const first = w.analyze(ref);
    await stats({ busy: 1, queued: 0, heldMemoryBytes: one });
    const second = w.analyze(ref);
    // A worker is free, but the second analysis waits for the first's memory.
    await stats({ busy: 1, queued: 1, heldMemoryBytes: one });
    // A task that says no memory passes it.
    const check = w.validateWorkload({ name: 'x', threads: [] });
    expect(w.pool.stats()).toMatchObject({ busy: 2, queued: 1 });
    const [a, b] = await Promise.all([first, second, check]);
    expect(JSON.parse(b)).toEqual(JSON.parse(a));
    expect(w.pool.stats()).toMatchObject({ busy: 0, queued: 0, heldMemoryBytes: 0 });
    // One that needs more than the whole budget still runs, alone.
    const alone = workers({ size: 2, memoryBudgetBytes: one / 2 });
    const big = alone.analyze(ref);
    const next = alone.analyze(ref);
    await vi.waitFor(() => expect(alone.pool.stats()).toMatchObject({ busy: 1, queued: 1 }), {
      interval: 1,
    });
    expect(JSON.parse(await next)).toEqual(JSON.parse(await big));
  });

  it('holds an import to the budget too, by its file size', async () => {
    const trace = loadTrace(await readFile(traceFile));
    const opCount = trace.ops.count;
    const ref = { path: traceFile, partial: false, opCount };
    const analysis =
      opCount * analysisCost.bytesPerOp + trace.ranges.count * analysisCost.bytesPerRange;
    const upload = path.join(dir, 'upload.json');
    await writeFile(upload, exportChromeTrace(loadTrace(await readFile(traceFile))));
    const w = workers({ size: 2, memoryBudgetBytes: analysis + 1 });
    const first = w.analyze(ref);
    await vi.waitFor(() => expect(w.pool.stats().busy).toBe(1), { interval: 1 });
    const imported = w.importFile(upload, {
      fileName: 'upload.json',
      maxBytes: Infinity,
      signal: new AbortController().signal,
      outBase: path.join(dir, 'upload'),
      onProgress: () => {},
    });
    // The import's estimate (half its JSON file) does not fit beside the analysis: it waits.
    await vi.waitFor(() => expect(w.pool.stats().queued).toBe(1));
    expect(w.pool.stats().busy).toBe(1);
    await first;
    const direct = await importTrace(await readFile(upload), { fileName: 'upload.json' });
    expect((await imported).opCount).toBe(direct.trace.ops.count);
  });

  it('stops an export whose reader goes away, and the worker takes the next task', async () => {
    // Never terminated for ignoring the abort here: the export must stop when told.
    const w = workers({ size: 1, maxQueued: 4, abortGraceMs: 600_000 });
    const exported = await w.exportChrome(stored());
    let first = '';
    const out = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        first ||= chunk.toString('utf8');
        // The reader goes away after the first chunk.
        out.destroy();
        callback();
      },
    });
    await expect(exported.pipeTo(out)).rejects.toThrow(/closed before the export ended/);
    expect(first).toMatch(/^\{"displayTimeUnit":"ns"/);
    expect(await w.validateWorkload(bigSpec(1000))).toEqual({ ok: true });
    expect(w.pool.stats()).toMatchObject({ workers: 1, busy: 0, queued: 0 });
  });

  it('terminates a worker that does not stop when aborted, and starts another for the next task', async () => {
    const w = workers({ size: 1, abortGraceMs: 1, warmWorkers: 0 });
    const aborter = new AbortController();
    // Expansion is synchronous in the worker: it cannot see the abort message until it is done.
    const slow = w.pool.run(
      { kind: 'validate-workload', workload: bigSpec(2_000_000) },
      { signal: aborter.signal },
    );
    aborter.abort();
    await expect(slow).rejects.toMatchObject({ name: 'AbortError' });
    await vi.waitFor(() => expect(w.pool.stats().workers).toBe(0), { timeout: 60_000 });
    expect(await w.validateWorkload(bigSpec(1000))).toEqual({ ok: true });
  });

  it('retires a worker that a task left big before answering, and keeps one that stayed small', async () => {
    const w = workers({ size: 1, warmWorkers: 1 });
    expect(await w.validateWorkload(bigSpec(1000))).toEqual({ ok: true });
    expect(w.pool.stats()).toMatchObject({ workers: 1, retired: 0 });
    // Two million expanded ops leave the worker's heap at about 185 MiB (an idle one holds
    // 34 MiB), above the 128 MiB limit: it is ended before the verdict comes back, and a fresh
    // warm worker takes its place.
    expect(await w.validateWorkload(bigSpec(2_000_000))).toEqual({ ok: true });
    expect(w.pool.stats()).toMatchObject({ workers: 1, busy: 0, retired: 1 });
    expect(await w.validateWorkload(bigSpec(1000))).toEqual({ ok: true });
    expect(w.pool.stats()).toMatchObject({ workers: 1, retired: 1 });
  });

  it.runIf(process.platform === 'linux')(
    'runs its threads the given niceness above the event loop that starts them, not at an absolute niceness',
    async () => {
      // A loop at niceness 0 could not tell "loop + 3" from "at least 3": make it 1 or more
      // (raising one's own niceness needs no privilege; it applies to this thread only).
      const loopNice = Math.min(16, Math.max(1, os.getPriority()));
      os.setPriority(loopNice);
      const before = threadNices();
      const w = workers({ size: 1, warmWorkers: 0, niceness: 3 });
      expect(await w.validateWorkload(bigSpec(1000))).toEqual({ ok: true });
      // The worker's thread (and only it) is new and at the loop's niceness + 3, e.g. 10 + 3 = 13
      // under `nice pnpm vitest`; an absolute niceness would have left it at max(10, 3) = 10.
      const started = [...threadNices()].filter(([tid]) => !before.has(tid)).map(([, n]) => n);
      expect(started).toContain(loopNice + 3);
    },
  );

  it('rejects with the precise error a task throws in its worker', async () => {
    const w = workers({ size: 1 });
    const missing = { path: path.join(dir, 'nope.sstrace'), partial: false };
    await expect(w.analyze(missing)).rejects.toMatchObject({ status: 404, code: 'not-found' });
    const truncated = path.join(dir, 'truncated.sstrace');
    const bytes = saveTrace(exportTestTrace(100, 10));
    await writeFile(truncated, bytes.subarray(0, bytes.length - 3));
    await expect(w.exportChrome({ path: truncated, partial: false })).rejects.toMatchObject({
      status: 500,
      code: 'unreadable-trace',
      message: expect.stringMatching(
        /^the stored trace cannot be read: the file ends inside the batch at byte \d+$/,
      ) as unknown,
    });
  });
});
