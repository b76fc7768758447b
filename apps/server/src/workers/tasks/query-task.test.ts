import { readFile, readdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importTrace } from '@streamscope/importers';
import type * as TraceModule from '@streamscope/trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { TileFile } from '../../storage/tile-file.ts';
import type { TraceQuery } from '../../storage/trace-query.ts';
import { answerQuery } from '../../storage/trace-query.ts';
import { mixedTrace } from '../../test-support/mixed-trace.ts';
import type * as LoadModule from '../load-trace-file.ts';
import { nameTest } from '../name-match.ts';
import type { TraceFileRef } from '../protocol.ts';
import { writeTilePyramid } from '../tile-pyramid.ts';
import { answerTraceQuery } from './query-task.ts';

// Every decode on this thread: of a stored trace file, and of codec bytes (with the ops each
// decoded trace holds), as window-task.test.ts counts them.
const decodes = vi.hoisted(() => ({ traceFiles: 0, opsDecoded: [] as number[] }));
vi.mock('../load-trace-file.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof LoadModule>();
  return {
    ...actual,
    loadTraceFile: (...args: Parameters<typeof actual.loadTraceFile>) => {
      decodes.traceFiles++;
      return actual.loadTraceFile(...args);
    },
  };
});
vi.mock('@streamscope/trace', async (importOriginal) => {
  const actual = await importOriginal<typeof TraceModule>();
  return {
    ...actual,
    loadTrace: (bytes: Uint8Array) => {
      const trace = actual.loadTrace(bytes);
      decodes.opsDecoded.push(trace.ops.count);
      return trace;
    },
  };
});

const fixtures = path.resolve(import.meta.dirname, '../../../../../fixtures');
let codec: typeof TraceModule;
let dir = '';

beforeAll(async () => {
  codec = await vi.importActual<typeof TraceModule>('@streamscope/trace');
  dir = await mkdtemp(path.join(tmpdir(), 'streamscope-query-task-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  decodes.traceFiles = 0;
  decodes.opsDecoded = [];
});

interface Stored {
  readonly ref: TraceFileRef;
  /** The stored trace as a whole decode gives it: what the exact answers are made on. */
  readonly decoded: TraceModule.Trace;
  readonly tilesPath: string;
}

/** Stores `trace` as an import does: the codec's file, and its tiles written from memory. */
async function store(name: string, trace: TraceModule.Trace): Promise<Stored> {
  const tracePath = path.join(dir, `${name}.sstrace`);
  const tilesPath = path.join(dir, `${name}.tiles`);
  const bytes = codec.saveTrace(trace);
  await writeFile(tracePath, bytes);
  writeTilePyramid(trace, tilesPath);
  return {
    ref: { path: tracePath, partial: false, opCount: trace.ops.count },
    decoded: codec.loadTrace(bytes),
    tilesPath,
  };
}

/** The wire answer (JSON), or the error's status, code, path and message. */
async function wire(answer: () => unknown): Promise<string> {
  try {
    return JSON.stringify(await answer());
  } catch (error) {
    const e = error as { status?: number; code?: string; path?: string; message: string };
    return JSON.stringify({ status: e.status, code: e.code, path: e.path, message: e.message });
  }
}

/** A deterministic generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

/**
 * Questions of every kind about `trace`: random areas (whole span, past its ends, one instant,
 * track subsets, a track beyond it), the flows of random ops, of ops with flows and of no op,
 * and searches for parts of its names, regular expressions and names it lacks.
 */
function questions(trace: TraceModule.Trace, seed: number): TraceQuery[] {
  const random = seeded(seed);
  const spanNs = trace.spanNs();
  const trackCount = trace.tracks.length;
  const ops = trace.ops.columns();
  const at = (): number => Math.floor(random() * spanNs);
  const qs: TraceQuery[] = [
    { type: 'area', fromNs: 0, toNs: spanNs, tracks: [] },
    { type: 'area', fromNs: -5e9, toNs: spanNs + 5e9, tracks: [] },
    { type: 'area', fromNs: spanNs + 1, toNs: spanNs + 10, tracks: [] },
    { type: 'area', fromNs: 0, toNs: spanNs, tracks: [trackCount] },
    { type: 'flows', track: trackCount, startNs: 0 },
    { type: 'flows', track: 0, startNs: -1 },
  ];
  for (let k = 0; k < 8; k++) {
    const a = at();
    const b = a + Math.floor((random() * spanNs) / (k + 1));
    const tracks = Array.from({ length: trackCount }, (_, t) => t).filter(() => random() < 0.4);
    qs.push({ type: 'area', fromNs: a, toNs: b, tracks });
  }
  if (ops.count > 0) {
    const i = Math.floor(random() * ops.count);
    qs.push({ type: 'area', fromNs: ops.startNs[i]!, toNs: ops.startNs[i]!, tracks: [] });
    for (let k = 0; k < 8; k++) {
      const j = Math.floor(random() * ops.count);
      qs.push({ type: 'flows', track: ops.track[j]!, startNs: ops.startNs[j]! });
    }
  }
  const flows = trace.flows.columns();
  for (let k = 0; k < Math.min(8, flows.count); k++) {
    const f = Math.floor(random() * flows.count);
    const op = k % 2 === 0 ? flows.fromOp[f]! : flows.toOp[f]!;
    qs.push({ type: 'flows', track: ops.track[op]!, startNs: ops.startNs[op]! });
  }
  const names = trace.strings.slice(1).filter((n) => n.length > 0);
  const searches: { q: string; regex: boolean }[] = [
    { q: 'no such name anywhere', regex: false },
    { q: '^cuda', regex: true },
    { q: '.', regex: true },
    { q: 'kernel|memcpy|gemm', regex: true },
  ];
  for (let k = 0; k < 4 && names.length > 0; k++) {
    const name = names[Math.floor(random() * names.length)]!;
    const from = Math.floor(random() * name.length);
    searches.push({ q: name.slice(from, from + 1 + Math.floor(random() * 6)), regex: false });
  }
  for (const s of searches) {
    const bucketCount = 1 + Math.floor(random() * 8192);
    qs.push({ type: 'search-marks', q: s.q, regex: s.regex, bucketCount });
  }
  return qs;
}

/** The names a search matches, as the route has a worker match them against the tiles file. */
async function withNameIds(query: TraceQuery, tilesPath: string): Promise<TraceQuery> {
  if (query.type !== 'search-marks') {
    return query;
  }
  const file = await TileFile.open(tilesPath);
  try {
    return { ...query, nameIds: file.matchingNames(nameTest(query)) };
  } finally {
    file.close();
  }
}

/** Asks every question of `stored` both ways; the tiles file's answers decode nothing. */
async function expectSameAnswers(stored: Stored, seed: number): Promise<number> {
  const qs = questions(stored.decoded, seed);
  for (const query of qs) {
    const exact = await wire(() => answerQuery(stored.decoded, query));
    const asked = await withNameIds(query, stored.tilesPath);
    decodes.traceFiles = 0;
    decodes.opsDecoded = [];
    const fromTiles = await wire(() => answerTraceQuery(stored.ref, asked));
    expect({ query, answer: fromTiles }).toEqual({ query, answer: exact });
    expect({ query, traceFiles: decodes.traceFiles, decoded: decodes.opsDecoded }).toEqual({
      query,
      traceFiles: 0,
      decoded: [],
    });
  }
  return qs.length;
}

describe('area, flows and search marks of a trace with a tiles file', () => {
  it('answer as the whole decoded trace does, with no decode, on generated traces', async () => {
    const mixed = await store('mixed', mixedTrace(20_000));
    expect(await expectSameAnswers(mixed, 1)).toBeGreaterThan(30);
    const synthetic = await store('synthetic', codec.syntheticTrace(30_000, 12));
    expect(synthetic.decoded.flows.count).toBeGreaterThan(10_000);
    await expectSameAnswers(synthetic, 2);
  });

  it('answer as the whole decoded trace does on every recorded run', async () => {
    const runs = (await readdir(path.join(fixtures, 'runs'))).filter((f) => f.endsWith('.sstrace'));
    expect(runs.length).toBeGreaterThan(10);
    for (const [k, file] of runs.entries()) {
      const trace = codec.loadTrace(await readFile(path.join(fixtures, 'runs', file)));
      await expectSameAnswers(await store(`run-${k}`, trace), 100 + k);
    }
  });

  it('answer as the whole decoded trace does on imported nsys and kineto exports', async () => {
    const files = [
      'nsys/2025.3.1/nccl2.sqlite.gz',
      'nsys/2025.3.1/graph.json.gz',
      'nsys/2025.3.1/train.sqlite',
      'kineto/nccl2-rank0.pt.trace.json.gz',
      'kineto/dataloader.pt.trace.json.gz',
    ];
    for (const [k, name] of files.entries()) {
      const bytes = new Uint8Array(await readFile(path.join(fixtures, name)));
      const { trace } = await importTrace(bytes, { fileName: path.basename(name) });
      // Imported as an upload is: the tiles are written from the trace in memory, not decoded.
      await expectSameAnswers(await store(`import-${k}`, trace), 200 + k);
    }
  });
});

describe('area, flows and search marks of a trace without a tiles file of this version', () => {
  it('decode the trace whole and answer exactly (stored before, or an older tiles file)', async () => {
    const stored = await store('older', mixedTrace(2000));
    const area: TraceQuery = { type: 'area', fromNs: 0, toNs: 1e6, tracks: [] };
    const exact = await wire(() => answerQuery(stored.decoded, area));
    // A version 2 file: the magic and version of the last format, as an older server wrote it.
    const older = Buffer.from(await readFile(stored.tilesPath));
    older.write('SSTILES2', 0, 'latin1');
    older.writeUInt32LE(2, 8);
    await writeFile(stored.tilesPath, older);
    expect(await wire(() => answerTraceQuery(stored.ref, area))).toBe(exact);
    expect(decodes.traceFiles).toBe(1);
    await rm(stored.tilesPath);
    expect(await wire(() => answerTraceQuery(stored.ref, area))).toBe(exact);
    expect(decodes.traceFiles).toBe(2);
  });

  it('decode the trace whole for search marks whose names were not matched against a tiles file', async () => {
    const stored = await store('unmatched', mixedTrace(2000));
    const marks: TraceQuery = { type: 'search-marks', q: 'gemm', regex: false, bucketCount: 64 };
    const answer = JSON.parse(await wire(() => answerTraceQuery(stored.ref, marks))) as {
      count: number;
    };
    expect(answer.count).toBe(1000);
    expect(decodes.traceFiles).toBe(1);
  });
});
