import { OpFlag, OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { compareTraces, matchOps } from './compare.ts';
import { TestTraceBuilder, pageableToDevice, pinnedToDevice } from './test-trace-builder.ts';

/** Two streams (ids differ per run, as real handles do) with "a", "b", "a" on the first. */
function run(streamBase: number, scale: number): TestTraceBuilder {
  const b = new TestTraceBuilder();
  const s1 = b.stream(streamBase);
  const s2 = b.stream(streamBase + 1);
  b.kernel(s1, 0, 100 * scale, 'a');
  b.kernel(s1, 100 * scale, 150 * scale, 'b');
  b.kernel(s1, 150 * scale, 250 * scale, 'a');
  b.gpu({
    track: s2,
    kind: OpKind.CopyHtoD,
    startNs: 0,
    endNs: 40,
    bytes: 4000,
    memKinds: pinnedToDevice,
  });
  return b;
}

describe('compareTraces', () => {
  it('matches ops by stream rank, kind, name and occurrence, across different stream ids', () => {
    const a = run(13, 2).trace;
    const b = run(21, 1).trace;
    const match = matchOps(a, b);
    // Op i of a is op i of b: both were built in the same order.
    expect(Array.from(match)).toEqual([0, 1, 2, 3]);
    const c = compareTraces(a, b);
    expect(c.matchedOps).toBe(4);
    expect(c.unmatchedA + c.unmatchedB).toBe(0);
    // Makespan 500 ns → 250 ns.
    expect(c.speedup).toBe(2);
    const kernelA = c.groups.find((g) => g.name === 'a')!;
    // Two "a" kernels: 200 + 200 ns before, 100 + 100 after.
    expect(kernelA).toMatchObject({ countA: 2, countB: 2, totalNsA: 400, totalNsB: 200 });
    expect(kernelA.deltaNs).toBe(-200);
    expect(c.largestDiffs[0]).toMatchObject({ name: 'a', durNsA: 200, durNsB: 100, deltaNs: -100 });
  });

  it('counts ops only one run has as unmatched', () => {
    const a = run(1, 1);
    const b = run(1, 1);
    b.kernel(b.trace.tracks.length - 2, 250, 300, 'extra');
    const c = compareTraces(a.trace, b.trace);
    expect(c.unmatchedA).toBe(0);
    expect(c.unmatchedB).toBe(1);
    expect(c.groups.find((g) => g.name === 'extra')).toMatchObject({ countA: 0, countB: 1 });
  });

  it('adds up each name over all streams, wherever the streams rank', () => {
    const a = new TestTraceBuilder();
    const a1 = a.stream(1);
    a.kernel(a1, 0, 100, 'gemm');
    a.kernel(a1, 100, 150, 'gemm');
    const b = new TestTraceBuilder();
    const b1 = b.stream(1);
    const b2 = b.stream(2);
    b.kernel(b1, 0, 60, 'gemm');
    b.kernel(b2, 0, 30, 'gemm');
    const c = compareTraces(a.trace, b.trace);
    // Per stream: rank 0 has 2 → 1 gemm, rank 1 0 → 1; per name: 150 ns → 90 ns, two each.
    expect(c.groups.filter((g) => g.name === 'gemm')).toHaveLength(2);
    expect(c.names).toEqual([
      {
        name: 'gemm',
        kind: 'kernel',
        countA: 2,
        countB: 2,
        totalNsA: 150,
        totalNsB: 90,
        deltaNs: -60,
      },
    ]);
  });

  it('compares communication and compute, and step times', () => {
    const make = (commNs: number) => {
      const t = new TestTraceBuilder();
      const host = t.host();
      const s1 = t.stream(1);
      const s2 = t.stream(2);
      t.range(host, 'ProfilerStep#1', 0, 1000);
      t.kernel(s1, 0, 500, 'gemm');
      t.kernel(s2, 400, 400 + commNs, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
      return t.trace;
    };
    const c = compareTraces(make(200), make(400));
    const row = (name: string) => c.metrics.find((m) => m.name === name)!;
    // Communication 200 → 400 ns, of which 100 ns beside the gemm: overlap 0.5 → 0.25.
    expect(row('communication busy')).toMatchObject({ a: 200, b: 400, delta: 200 });
    expect(row('exposed communication')).toMatchObject({ a: 100, b: 300 });
    expect(row('comm/compute overlap')).toMatchObject({ a: 0.5, b: 0.25 });
    expect(row('compute busy')).toMatchObject({ a: 500, b: 500 });
    expect(row('median step')).toMatchObject({ a: 1000, b: 1000 });
  });

  it('leaves out a figure a run does not have, rather than comparing a 0 nothing measured', () => {
    // Kernels only on one side; on the other a copy too. Neither has linked launches or steps.
    const kernelsOnly = new TestTraceBuilder();
    kernelsOnly.kernel(kernelsOnly.stream(1), 0, 100, 'k');
    const names = compareTraces(kernelsOnly.trace, run(1, 1).trace).metrics.map((m) => m.name);
    expect(names).toContain('makespan');
    expect(names).not.toContain('copy/compute overlap');
    expect(names).not.toContain('overlap H2D');
    expect(names).not.toContain('launch latency p50');
    expect(names).not.toContain('median step');
    expect(names).not.toContain('comm/compute overlap');
    // Both with an H2D copy: the ratio over copies is a figure on each side, so it is compared.
    const both = compareTraces(run(1, 1).trace, run(1, 2).trace).metrics.map((m) => m.name);
    expect(both).toContain('copy/compute overlap');
    expect(both).toContain('overlap H2D');
    expect(both).not.toContain('overlap D2H');
  });
});

describe('summary tables', () => {
  it('gives count, total, average, median, min, max and sample std dev per kernel name', () => {
    const b = new TestTraceBuilder();
    const s = b.stream(1);
    // "k": 10, 20, 30 ns; "q": 5 ns.
    b.kernel(s, 0, 10, 'k');
    b.kernel(s, 10, 30, 'k');
    b.kernel(s, 30, 60, 'k');
    b.kernel(s, 60, 65, 'q');
    const [k, q] = analyzeTrace(b.trace).kernelStats;
    // Mean 20; squared deviations 100 + 0 + 100 = 200; 200 / (3 − 1) = 100; √100 = 10.
    expect(k).toEqual({
      name: 'k',
      kernelClass: 'compute',
      count: 3,
      totalNs: 60,
      avgNs: 20,
      medNs: 20,
      minNs: 10,
      maxNs: 30,
      stdDevNs: 10,
      timeShare: 60 / 65,
    });
    expect(q).toMatchObject({ name: 'q', count: 1, stdDevNs: 0 });
  });

  it('gives count, bytes, time, bandwidth and pageable count per copy kind', () => {
    const b = new TestTraceBuilder();
    const s = b.stream(1);
    const copy = (from: number, to: number, bytes: number, memKinds: number) =>
      b.gpu({ track: s, kind: OpKind.CopyHtoD, startNs: from, endNs: to, bytes, memKinds });
    copy(0, 100, 1000, pinnedToDevice);
    copy(100, 400, 2000, pageableToDevice);
    b.gpu({ track: s, kind: OpKind.Memset, startNs: 400, endNs: 410, bytes: 64 });
    const rows = analyzeTrace(b.trace).copyStats;
    // H2D: 3000 B over 400 ns = 7.5 GB/s.
    expect(rows).toEqual([
      {
        kind: 'copy-htod',
        count: 2,
        bytes: 3000,
        totalNs: 400,
        avgNs: 200,
        minNs: 100,
        maxNs: 300,
        stdDevNs: Math.sqrt(((100 - 200) ** 2 + (300 - 200) ** 2) / 1),
        avgGBps: 7.5,
        pageableCount: 1,
      },
      expect.objectContaining({ kind: 'memset', count: 1, bytes: 64 }) as unknown,
    ]);
  });

  it('averages copy bandwidth over the copies of known size; unknown when none has one', () => {
    const b = new TestTraceBuilder();
    const s = b.stream(1);
    b.gpu({ track: s, kind: OpKind.CopyHtoD, startNs: 0, endNs: 100, bytes: 1000 });
    b.gpu({
      track: s,
      kind: OpKind.CopyHtoD,
      startNs: 100,
      endNs: 400,
      flags: OpFlag.BytesUnknown,
    });
    b.gpu({
      track: s,
      kind: OpKind.CopyDtoH,
      startNs: 400,
      endNs: 500,
      flags: OpFlag.BytesUnknown,
    });
    const rows = analyzeTrace(b.trace).copyStats;
    // H2D: 1000 B over the 100 ns of the one sized copy, not over all 400 ns (2.5 GB/s).
    expect(rows.find((r) => r.kind === 'copy-htod')).toMatchObject({ count: 2, avgGBps: 10 });
    expect(rows.find((r) => r.kind === 'copy-dtoh')?.avgGBps).toBeNaN();
  });
});

describe('edge cases', () => {
  it('analyzes an empty trace and a trace with host ops only', () => {
    const empty = analyzeTrace(new TestTraceBuilder().trace);
    expect(empty.metrics.makespanNs).toBe(0);
    expect(empty.findings).toEqual([]);
    const b = new TestTraceBuilder();
    const host = b.host();
    b.stream(1);
    b.apiCall({ hostTrack: host, name: 'cudaDeviceSynchronize', startNs: 0, endNs: 10 });
    const hostOnly = analyzeTrace(b.trace);
    expect(hostOnly.gaps.stream.count).toBe(0);
    expect(hostOnly.metrics.streams).toEqual([
      { track: 1, label: 'Stream 1', busyNs: 0, utilization: 0, opCount: 0 },
    ]);
    expect(JSON.parse(JSON.stringify(hostOnly))).toEqual(hostOnly);
  });

  it('analyzes a window with no ops in it', () => {
    const a = analyzeTrace(run(1, 1).trace, { fromNs: 10_000, toNs: 20_000 });
    expect(a.metrics.gpuOpCount).toBe(0);
    expect(a.metrics.busyNsByEngine.compute).toBe(0);
    expect(a.gaps.device.count).toBe(0);
  });
});
