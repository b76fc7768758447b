import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { buildContext } from './context.ts';
import { pointToPointOps } from './pipeline-stages.ts';
import { rankAnalysis } from './ranks.ts';
import { TestTraceBuilder } from './test-trace-builder.ts';

const us = 1000;
const gemm = 'sm90_xmma_gemm_f32f32';
const sendRecv = 'ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)';
const transferUs = 20;

interface StageUs {
  readonly fwd: number;
  readonly bwd: number;
}

/**
 * A 2-stage GPipe job of `steps` steps of 4 microbatches: rank r is stage r, compute on stream 7,
 * NCCL send/recv kernels on stream 17 (each stream runs one op at a time). Forward: stage 0 runs
 * each microbatch and sends it; stage 1's receive kernel starts when its stream is free and
 * spins until the send has started, then both end 20 µs later. Backward the other way, in the
 * same microbatch order. With `idleGradWait` stage 0's host posts each gradient receive only
 * when the gradient is on its way, so its GPU idles while it waits instead of spinning.
 */
function gpipeJob(
  stage0: StageUs,
  stage1: StageUs,
  { steps = 3, idleGradWait = false }: { steps?: number; idleGradWait?: boolean } = {},
): TestTraceBuilder {
  const b = new TestTraceBuilder();
  const compute = [b.rankStream(0, 7), b.rankStream(1, 7)];
  const p2p = [b.rankStream(0, 17), b.rankStream(1, 17)];
  const p2pFreeUs = [0, 0];
  let t0 = 0; // stage 0's compute stream is free from (µs)
  let t1 = 0;
  const transfer = (from: number, sendUs: number, readyUs: number, postUs = readyUs): void => {
    // The sender's kernel from sendUs, the receiver's from postUs, both until the data is over.
    const to = 1 - from;
    const sendStartUs = Math.max(sendUs, p2pFreeUs[from]!);
    const recvStartUs = Math.max(postUs, p2pFreeUs[to]!);
    const endUs = Math.max(sendStartUs, Math.max(readyUs, p2pFreeUs[to]!)) + transferUs;
    b.kernel(p2p[from]!, sendStartUs * us, endUs * us, sendRecv);
    b.kernel(p2p[to]!, recvStartUs * us, endUs * us, sendRecv);
    p2pFreeUs[from] = endUs;
    p2pFreeUs[to] = endUs;
  };
  for (let step = 0; step < steps; step++) {
    for (let mb = 0; mb < 4; mb++) {
      b.kernel(compute[0]!, t0 * us, (t0 + stage0.fwd) * us, gemm);
      t0 += stage0.fwd;
      transfer(0, t0, t1);
      t1 = p2pFreeUs[1]!;
      b.kernel(compute[1]!, t1 * us, (t1 + stage1.fwd) * us, gemm);
      t1 += stage1.fwd;
    }
    for (let mb = 0; mb < 4; mb++) {
      b.kernel(compute[1]!, t1 * us, (t1 + stage1.bwd) * us, gemm);
      t1 += stage1.bwd;
      transfer(1, t1, t0, idleGradWait ? Math.max(t0, t1) : t0);
      t0 = p2pFreeUs[0]!;
      b.kernel(compute[0]!, t0 * us, (t0 + stage0.bwd) * us, gemm);
      t0 += stage0.bwd;
    }
  }
  return b;
}

describe('pipeline stages', () => {
  it('does not name a straggler from the bubble of balanced stages', () => {
    // Both stages compute 100 µs forward and 200 µs backward per microbatch. Stage 0 waits for
    // its first gradient idle (its host posts the receive late), stage 1 spins in its receives:
    // by collectives' reading stage 1 waits for stage 0, which is no slower.
    const trace = gpipeJob(
      { fwd: 100, bwd: 200 },
      { fwd: 100, bwd: 200 },
      { idleGradWait: true },
    ).trace;
    const ranks = rankAnalysis(buildContext(trace))!;
    // In NCCL kernels: rank 0 840 µs, rank 1 1540 µs. Read as collectives (median 1190 µs),
    // rank 0 would be the straggler, 350 µs (29%) under it.
    expect(ranks.ranks.map((r) => [r.rank, r.computeNs / us, r.communicationNs / us])).toEqual([
      [0, 3600, 840],
      [1, 3600, 1540],
    ]);
    expect(ranks.pipeline!.stages.map((s) => s.rank)).toEqual([0, 1]);
    // A step takes 100 (stage 0's first forward) + 20 + 4 × 100 + 3 × 20 (stage 1's forwards
    // and receives) + 4 × 200 + 20 (its backwards, its last send) + 200 (stage 0's last
    // backward) = 1600 µs. The window both worked ends at rank 1's last send, 2 × 1600 + 1380
    // = 4780 µs: stage 1 computes 3 × 4 × 300 = 3600 µs in it, stage 0 the same less its last
    // backward, after the window: 100 µs above the median of 3400 and 3600, 2.9%, under 5%.
    expect(ranks.pipeline!.stages.map((s) => s.computeNs / us)).toEqual([3400, 3600]);
    expect(ranks.straggler).toMatchObject({ rank: 1, metric: 'compute', diffNs: 100 * us });
    const analysis = analyzeTrace(trace);
    expect(analysis.findings.map((f) => f.ruleId)).not.toContain('rank-straggler');
  });

  it('names the stage that computes longer per microbatch as the bottleneck, with figures', () => {
    // Stage 1 takes 1.5× as long: 150 µs forward and 300 µs backward against 100 and 200.
    const trace = gpipeJob({ fwd: 100, bwd: 200 }, { fwd: 150, bwd: 300 }).trace;
    const ranks = rankAnalysis(buildContext(trace))!;
    // A step takes 100 + 20 + 4 × 150 + 3 × 20 + 4 × 300 + 20 + 200 = 2200 µs (as above) and
    // the window ends at rank 1's last send, 2 × 2200 + 2000 = 6400 µs. Stage 1 computes
    // 3 × 4 × 450 = 5400 µs, stage 0 3 × 4 × 300 − 200 = 3400 µs (its last backward after the
    // window); median 4400, stage 1 1000 µs (22.7%) above it, 1.59× stage 0.
    const { fromNs, toNs, stages } = ranks.pipeline!;
    expect([fromNs / us, toNs / us]).toEqual([0, 6400]);
    expect(stages.map((s) => s.computeNs / us)).toEqual([3400, 5400]);
    expect(ranks.straggler).toEqual({
      rank: 1,
      metric: 'compute',
      valueNs: 5400 * us,
      medianNs: 4400 * us,
      diffNs: 1000 * us,
      minNs: 3400 * us,
    });
    const found = analyzeTrace(trace).findings.find((f) => f.ruleId === 'rank-straggler')!;
    expect(found.title).toBe("Rank 1 is the pipeline's bottleneck stage");
    expect(found.severity).toBe('warning');
    expect(found.estimatedSavingNs).toBe(1000 * us);
    // Out of compute in the window: stage 0 6400 − 3400 = 3000 µs; stage 1 1000 µs (15.6%):
    // its first receive of each step (120 µs, then 320 µs while stage 0 runs its last backward
    // and next forward), 3 × 20 µs of receives and its last send, 20 µs.
    expect(found.message).toContain(
      "rank 1 computes 5.4 ms on the GPU, 1 ms (22.7%) more than the two stages' median (4.4 ms; rank 0: 3.4 ms), 1.59× the stage that computes least",
    );
    expect(found.message).toContain(
      "their time out of compute in the window (receiving or idle) is rank 0: 3 ms, against rank 1's 1 ms (15.6%), the pipeline's fill and drain",
    );
    expect(found.message).toContain('move layers from rank 1 to rank 0');
  });

  it('takes an all-to-all for a collective, though NCCL runs it as SendRecv', () => {
    // Each rank: an all-reduce, then a SendRecv kernel launched inside "nccl:all_to_all".
    const b = new TestTraceBuilder();
    for (const rank of [0, 1]) {
      const host = b.rankHost(rank);
      const nccl = b.rankStream(rank, 17);
      b.kernel(b.rankStream(rank, 7), 0, 500 * us, gemm);
      b.kernel(nccl, 500 * us, 700 * us, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL');
      b.range(host, 'nccl:all_to_all', 600 * us, 650 * us);
      const launch = {
        hostTrack: host,
        name: 'cuLaunchKernelEx',
        startNs: 610 * us,
        endNs: 620 * us,
      };
      b.kernel(nccl, 700 * us, 800 * us, sendRecv, launch);
    }
    const ctx = buildContext(b.trace);
    expect([...pointToPointOps(ctx)]).toEqual(new Array(ctx.cols.count).fill(0));
    expect(rankAnalysis(ctx)!.pipeline).toBeUndefined();
  });

  it('takes a kernel launched inside a send or receive range as point to point, whatever its name', () => {
    const b = new TestTraceBuilder();
    for (const rank of [0, 1]) {
      const host = b.rankHost(rank);
      b.range(host, rank === 0 ? 'nccl:send 0->1' : 'nccl:recv 1<-0', 0, 100 * us);
      const launch = {
        hostTrack: host,
        name: 'cuLaunchKernelEx',
        startNs: 10 * us,
        endNs: 20 * us,
      };
      b.kernel(b.rankStream(rank, 17), 50 * us, 90 * us, 'ncclDevKernel_Generic_4', launch);
    }
    const ranks = rankAnalysis(buildContext(b.trace))!;
    expect(ranks.pipeline!.stages.map((s) => s.pointToPointNs / us)).toEqual([40, 40]);
  });

  it('needs sends and receives on two ranks before it reads them as stages', () => {
    const b = new TestTraceBuilder();
    b.kernel(b.rankStream(0, 7), 0, 1000 * us, gemm);
    b.kernel(b.rankStream(0, 17), 1000 * us, 1100 * us, sendRecv);
    b.kernel(b.rankStream(1, 7), 0, 1300 * us, gemm);
    const ranks = rankAnalysis(buildContext(b.trace))!;
    expect(ranks.pipeline).toBeUndefined();
  });
});
