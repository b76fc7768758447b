import { OpKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { buildContext } from './context.ts';
import { KernelClass, kernelClassOfName } from './kernel-classes.ts';
import { rankAnalysis } from './ranks.ts';

const us = 1000;

/**
 * Two ranks (pid 100 + rank) of three steps each, 1600 µs apart. A step: compute kernels on
 * stream 7 for `computeUs[rank]` µs, `lateUs[rank]` µs into the step (a host that launches
 * late), then the all-reduce on stream 16 from the end of the later rank's compute for 200 µs.
 * The early rank's NCCL kernel starts when its compute ends and spins until the late rank joins,
 * as NCCL kernels do.
 */
function twoRankJob(
  computeUs: readonly [number, number],
  lateUs: readonly [number, number] = [0, 0],
): Trace {
  const trace = new Trace({ title: 'job' });
  trace.addDevice({ deviceId: 0, name: 'gpu' });
  const slowestUs = Math.max(computeUs[0] + lateUs[0], computeUs[1] + lateUs[1]);
  for (const rank of [0, 1]) {
    const pid = 100 + rank;
    trace.addProcess({ pid, name: 'python3', rank });
    const stream = (streamId: number): number =>
      trace.addTrack({
        kind: 'gpu-stream',
        name: '',
        pid,
        deviceId: 0,
        contextId: 1,
        streamId,
        streamType: 'non-blocking',
        priority: 0,
        rank,
      });
    const compute = stream(7);
    const nccl = stream(16);
    const gemm = trace.strings.intern('sm90_xmma_gemm_f32f32');
    const allReduce = trace.strings.intern('ncclDevKernel_AllReduce_Sum_f32_RING_LL');
    for (let step = 0; step < 3; step++) {
      const t0 = step * 1600 * us + lateUs[rank]! * us;
      const half = (computeUs[rank]! * us) / 2;
      trace.addOp({
        track: compute,
        kind: OpKind.Kernel,
        startNs: t0,
        endNs: t0 + half,
        nameId: gemm,
      });
      trace.addOp({
        track: compute,
        kind: OpKind.Kernel,
        startNs: t0 + half,
        endNs: t0 + 2 * half,
        nameId: gemm,
      });
      trace.addOp({
        track: nccl,
        kind: OpKind.Kernel,
        startNs: t0 + 2 * half,
        endNs: step * 1600 * us + (slowestUs + 200) * us,
        nameId: allReduce,
      });
    }
  }
  return trace;
}

describe('rankAnalysis', () => {
  it('splits each rank into compute, communication and idle over its own GPU span', () => {
    const ranks = rankAnalysis(buildContext(twoRankJob([1000, 1300])))!;
    // Span: 0 to the third step's all-reduce end, 2 × 1600 + 1500 µs = 4700 µs on both ranks.
    // Busy: 1500 µs per step; idle: 100 µs between steps, twice.
    expect(ranks.ranks).toEqual([
      {
        rank: 0,
        pids: [100],
        gpuOpCount: 9,
        fromNs: 0,
        spanNs: 4700 * us,
        busyNs: 4500 * us,
        computeNs: 3000 * us,
        communicationNs: 1500 * us, // 500 µs per step: 300 waiting for rank 1, 200 moving data
        memoryNs: 0,
        idleNs: 200 * us,
      },
      {
        rank: 1,
        pids: [101],
        gpuOpCount: 9,
        fromNs: 0,
        spanNs: 4700 * us,
        busyNs: 4500 * us,
        computeNs: 3900 * us,
        communicationNs: 600 * us,
        memoryNs: 0,
        idleNs: 200 * us,
      },
    ]);
  });

  it('finds the rank that computes 30% longer, and by how much', () => {
    const { straggler } = rankAnalysis(buildContext(twoRankJob([1000, 1300])))!;
    // Median compute of 3000 and 3900 µs is 3450 µs: rank 1 is 450 µs above it.
    expect(straggler).toEqual({
      rank: 1,
      metric: 'compute',
      valueNs: 3900 * us,
      medianNs: 3450 * us,
      diffNs: 450 * us,
      minNs: 3000 * us,
    });
  });

  it('finds the rank whose host launches late, which idles most while the other waits in its collectives', () => {
    // Rank 0 starts each step's work 400 µs late: its GPU idles between steps, rank 1's
    // all-reduce spins 400 µs longer and its GPU never idles. Rank 1 idles least, yet it is the
    // one that waits.
    const ranks = rankAnalysis(buildContext(twoRankJob([1000, 1000], [400, 0])))!;
    expect(ranks.ranks.map((r) => [r.rank, r.communicationNs / us, r.idleNs / us])).toEqual([
      [0, 600, 800],
      [1, 1800, 0],
    ]);
    expect(ranks.straggler).toEqual({
      rank: 0,
      metric: 'communication',
      valueNs: 600 * us,
      medianNs: 1200 * us,
      diffNs: 600 * us,
      minNs: 600 * us,
    });
    const found = analyzeTrace(twoRankJob([1000, 1000], [400, 0])).findings.find(
      (f) => f.ruleId === 'rank-straggler',
    )!;
    expect(found.title).toBe('Rank 0 is the straggler');
    expect(found.message).toContain(
      "spends 600 µs in collectives on the GPU, 600 µs (50.0%) less than the two ranks' median (1.2 ms; rank 1: 1.8 ms): the others wait for it inside theirs",
    );
  });

  it('reports the straggler as a finding of analyzeTrace, with the ratio to the fastest rank', () => {
    const analysis = analyzeTrace(twoRankJob([1000, 1300]));
    expect(analysis.ranks?.ranks.map((r) => r.rank)).toEqual([0, 1]);
    const found = analysis.findings.find((f) => f.ruleId === 'rank-straggler')!;
    expect(found.title).toBe('Rank 1 is the straggler');
    expect(found.severity).toBe('warning');
    expect(found.estimatedSavingNs).toBe(450 * us);
    expect(found.message).toContain('1.30× that of the rank that computes least');
    expect(found.message).toContain(
      "computes 3.9 ms on the GPU, 450 µs (13.0%) more than the two ranks' median (3.45 ms; rank 0: 3 ms)",
    );
    // Rank 1's ops are 9–17 (rank 0's come first), longest first: its six 650 µs compute kernels,
    // then its three 200 µs all-reduces.
    expect(found.opIndices).toEqual([9, 10, 12, 13, 15, 16, 11, 14, 17]);
  });

  it('says nothing when the ranks are balanced, and nothing about a one-rank trace', () => {
    const balanced = analyzeTrace(twoRankJob([1000, 1000]));
    expect(balanced.ranks?.straggler).toBeUndefined();
    expect(balanced.findings.map((f) => f.ruleId)).not.toContain('rank-straggler');
    // 4% more compute (2% above the median) is a straggler in the numbers, not a finding.
    const close = analyzeTrace(twoRankJob([1000, 1040]));
    expect(close.ranks?.straggler).toMatchObject({ rank: 1, diffNs: 60 * us });
    expect(close.findings.map((f) => f.ruleId)).not.toContain('rank-straggler');
    const one = new Trace();
    one.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId: 0,
      contextId: 1,
      streamId: 7,
      streamType: 'unknown',
      priority: 0,
      rank: 0,
    });
    one.addOp({ track: 0, kind: OpKind.Kernel, startNs: 0, endNs: 10, nameId: 0 });
    expect(analyzeTrace(one).ranks).toBeUndefined();
  });
});

describe('kernelClassOfName as the rank breakdown uses it', () => {
  it('knows NCCL and RCCL kernels, plain and mangled, and nothing else', () => {
    expect(
      kernelClassOfName('ncclDevKernel_AllReduce_Sum_f32_RING_LL') === KernelClass.Communication,
    ).toBe(true);
    expect(
      kernelClassOfName('_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE') ===
        KernelClass.Communication,
    ).toBe(true);
    expect(
      kernelClassOfName('void ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)') ===
        KernelClass.Communication,
    ).toBe(true);
    expect(kernelClassOfName('rcclGenericKernel') === KernelClass.Communication).toBe(true);
    expect(kernelClassOfName('rccl_AllReduce') === KernelClass.Communication).toBe(true);
    expect(kernelClassOfName('sm90_xmma_gemm_f32f32') === KernelClass.Communication).toBe(false);
    expect(kernelClassOfName('unccl_thing') === KernelClass.Communication).toBe(false);
  });
});
