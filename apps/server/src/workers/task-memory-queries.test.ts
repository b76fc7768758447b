import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { importPeakBytesPerOp } from '@streamscope/importers';
import os from 'node:os';
import path from 'node:path';
import { TraceEncoder, saveTrace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mixedTrace } from '../test-support/mixed-trace.ts';
import type { ToWorker, WorkerTask } from './protocol.ts';
import { ServerWorkers } from './server-workers.ts';
import { analysisCost, containerBytesPerFileByte, decodedTrace } from './task-memory.ts';
import { writeTilePyramid } from './tile-pyramid.ts';
import type { TaskHandlers, WorkerPool } from './worker-pool.ts';

// What a window or a query of a stored trace tells the pool it may hold: the decoded trace when
// it decodes the trace whole, nothing when it reads the tiles file (the window's rows) or the
// stored range batches. Without it, a window of a 176M-op trace stored before its tiles file
// would decode 9 GB beside an analysis the budget had let fill the machine.

let dir = '';
const opCount = 3000;
let untiled = { path: '', partial: false, opCount };
let tiled = { path: '', partial: false, opCount };
let rangeCount = 0;
/** A live run's records so far: no end batch, no op count. */
let livePath = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'task-memory-queries-'));
  const trace = mixedTrace(opCount);
  rangeCount = trace.ranges.count;
  untiled = { path: path.join(dir, 'plain.sstrace'), partial: false, opCount: trace.ops.count };
  tiled = { path: path.join(dir, 'big.sstrace'), partial: false, opCount: trace.ops.count };
  await writeFile(untiled.path, saveTrace(trace));
  await writeFile(tiled.path, saveTrace(trace));
  writeTilePyramid(trace, path.join(dir, 'big.tiles'));
  livePath = path.join(dir, 'live.sstrace');
  await writeFile(livePath, new TraceEncoder(trace).encodeNew());
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** ServerWorkers on a pool that only notes what each task declares. */
function recording(): { workers: ServerWorkers; declared: (number | undefined)[] } {
  const declared: (number | undefined)[] = [];
  const pool = {
    run: (_task: ToWorker, handlers: TaskHandlers = {}) => {
      declared.push(handlers.memoryBytes);
      return Promise.resolve(new Uint8Array(0));
    },
  } as unknown as WorkerPool;
  return { workers: new ServerWorkers(pool), declared };
}

describe('the memory an uploaded container declares', () => {
  it('is its measured peak over its size, at most the ops the server keeps', async () => {
    const { workers, declared } = recording();
    const signal = new AbortController().signal;
    const size = (await stat(untiled.path)).size;
    const outBase = path.join(dir, 'never');
    await workers.readContainer(untiled.path, { fileName: 'a.sstrace', signal, outBase });
    await workers.readContainer(untiled.path, {
      fileName: 'a.sstrace',
      signal,
      maxOps: 10,
      outBase,
    });
    expect(declared).toEqual([size * containerBytesPerFileByte, 10 * importPeakBytesPerOp]);
  });
});

describe('the memory a window or a query declares', () => {
  it('is the decoded trace where it decodes the trace whole, nothing where it reads tiles', async () => {
    const { workers, declared } = recording();
    const window = { fromNs: 0, toNs: 1_000_000 };
    // Ops and ranges, as the file's end counts them.
    expect(rangeCount).toBeGreaterThan(0);
    const whole =
      untiled.opCount * decodedTrace.bytesPerOp + rangeCount * decodedTrace.bytesPerRange;

    await workers.window(untiled, window);
    await workers.window(tiled, window);
    await workers.window(tiled); // a whole snapshot is decoded and encoded again
    await workers.window({ ...tiled, partial: true }, window); // a live run's file has no tiles
    expect(declared.splice(0)).toEqual([whole, undefined, whole, whole]);

    const area = { type: 'area', fromNs: 0, toNs: 1_000_000, tracks: [] } as const;
    await workers.query(untiled, area);
    await workers.query(tiled, area);
    await workers.query(tiled, { type: 'flows', track: 0, startNs: 0 });
    // Search marks by name decode the trace; by the ids matched against the tiles, they read tiles.
    await workers.query(tiled, { type: 'search-marks', q: 'k', regex: false, bucketCount: 10 });
    await workers.query(tiled, {
      type: 'search-marks',
      q: 'k',
      regex: false,
      nameIds: [1],
      bucketCount: 10,
    });
    await workers.query(untiled, { type: 'range-lanes' });
    expect(declared.splice(0)).toEqual([whole, undefined, undefined, whole, undefined, undefined]);
  });

  it("is counted from the file's end where the entry does not say its op count", async () => {
    const { workers, declared } = recording();
    await workers.window({ path: untiled.path, partial: false }, { fromNs: 0, toNs: 1 });
    expect(declared).toEqual([
      untiled.opCount * decodedTrace.bytesPerOp + rangeCount * decodedTrace.bytesPerRange,
    ]);
  });

  it('is unknown, so undeclared, where neither the entry nor the file says it', async () => {
    const { workers, declared } = recording();
    await workers.window({ path: livePath, partial: true }, { fromNs: 0, toNs: 1 });
    expect(declared).toEqual([undefined]);
  });
});

describe('a task the machine cannot hold', () => {
  it('is refused before it starts, naming what, how much and what to do', async () => {
    const ran: WorkerTask[] = [];
    const pool = {
      run: (task: WorkerTask) => {
        ran.push(task);
        return Promise.resolve(new Uint8Array(0));
      },
    } as unknown as WorkerPool;
    // A machine of 100 kB: the 3,000-op trace decoded (153 kB) does not fit, its tiles read do.
    const workers = new ServerWorkers(pool, 100_000);
    const refusals = [
      workers.analyze(untiled),
      workers.window(untiled, { fromNs: 0, toNs: 1_000_000 }),
      workers.query(untiled, { type: 'area', fromNs: 0, toNs: 1, tracks: [] }),
      workers.buildTiles(untiled, path.join(dir, 'never.tiles')),
      workers.replaySource(untiled),
      workers.mergeRanks([{ trace: untiled, fileName: 'a' }], undefined, path.join(dir, 'never')),
    ];
    // Each reads its trace's counts first (I/O): all are awaited together, so none is left
    // rejected without a handler while another is awaited.
    for (const outcome of await Promise.allSettled(refusals)) {
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: { status: 507, code: 'too-large-for-memory' },
      });
    }
    const analysisBytes = untiled.opCount * 130 + rangeCount * 80;
    expect(analysisCost).toEqual({ bytesPerOp: 130, bytesPerRange: 80 });
    await expect(workers.analyze(untiled)).rejects.toThrow(
      `the analysis of this trace needs about ${Math.ceil(analysisBytes / 1e3)} kB of memory (${untiled.opCount.toLocaleString('en-US')} ops at 130 bytes an op and ${rangeCount.toLocaleString('en-US')} ranges at 80 bytes a range), more than the 100 kB this machine has; on a machine with more, download the trace and run`,
    );
    expect(ran).toEqual([]);
    // What reads the tiles file declares nothing and runs; so does a trace of unknown size.
    await workers.window(tiled, { fromNs: 0, toNs: 1_000_000 });
    await workers.analyze({ path: livePath, partial: true });
    expect(ran.map((task) => task.kind)).toEqual(['window', 'analyze']);
  });
});
