import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { TestTraceBuilder } from './test-trace-builder.ts';

const us = 1000;
const gemm = 'sm90_xmma_gemm_f32f32';
const sendRecv = 'ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)';
const allReduce = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL';
// Per microbatch and stage: forward, backward and one transfer, in µs.
const fwdUs = 100;
const bwdUs = 200;
const transferUs = 10;

interface JobOptions {
  readonly microbatches?: number;
  readonly steps?: number;
  /** Each send and receive launched inside "nccl:send 0->1" / "nccl:recv 1<-0", in ProfilerSteps. */
  readonly marked?: boolean;
  /** An all-reduce of this many µs on each rank every step (data parallelism beside the pipeline). */
  readonly allReduceUs?: number;
}

/**
 * A 2-stage GPipe job, rank r stage r: compute on stream 7, NCCL send/recv kernels on stream 17,
 * each stream one op at a time. The hosts run ahead, so a receive kernel starts as soon as its
 * stream is free and spins, beside compute or alone, until the data has come (a transfer after
 * the send starts). With m microbatches a step of S = (m + 1)(fwd + bwd) + 2 transfers
 * (1520 µs for m = 4), from its start s:
 * - stage 0 runs forward i at s + [100i, 100(i + 1)] and sends it for 10 µs right after; its
 *   first gradient receive spins from s + 100m + 10 (its last send done) to s + 100(m + 1) + 220,
 *   where stage 1's first backward has been sent; backward i from s + 100(m + 1) + 220 + 200i;
 * - stage 1 receives forward i by s + 100(i + 1) + 10 and runs it at once, then backward i at
 *   s + 100(m + 1) + 10 + 200i, sending each right after; its first receive of the next step
 *   spins from its last send's end, s + 100(m + 1) + 200m + 20.
 */
function gpipeJob({
  microbatches: m = 4,
  steps = 3,
  marked = true,
  allReduceUs = 0,
}: JobOptions = {}): { b: TestTraceBuilder; p2p: number[]; allReduces: number[] } {
  const b = new TestTraceBuilder();
  const compute = [b.rankStream(0, 7), b.rankStream(1, 7)];
  const nccl = [b.rankStream(0, 17), b.rankStream(1, 17)];
  const comm = [b.rankStream(0, 21), b.rankStream(1, 21)];
  const host = [b.rankHost(0), b.rankHost(1)];
  const p2p: number[] = [];
  const allReduces: number[] = [];
  // Per rank, the first and last launch of the step being built (ns).
  let launches: [number, number][] = [];
  const transfer = (rank: number, role: 'send' | 'recv', fromUs: number, toUs: number): void => {
    if (!marked) {
      p2p.push(b.kernel(nccl[rank]!, fromUs * us, toUs * us, sendRecv));
      return;
    }
    // The host launches the kernel 5 µs before it starts, inside PyTorch's range for the call.
    const launchNs = (fromUs - 5) * us;
    const peer = 1 - rank;
    const name = role === 'send' ? `nccl:send ${rank}->${peer}` : `nccl:recv ${rank}<-${peer}`;
    b.range(host[rank]!, name, launchNs - us, launchNs + 3 * us, 'cpu_op');
    const api = {
      hostTrack: host[rank]!,
      name: 'cudaLaunchKernel',
      startNs: launchNs,
      endNs: launchNs + 2 * us,
    };
    p2p.push(b.kernel(nccl[rank]!, fromUs * us, toUs * us, sendRecv, api));
    const [first, last] = launches[rank] ?? [launchNs, launchNs];
    launches[rank] = [Math.min(first, launchNs), Math.max(last, launchNs)];
  };
  const stepUs = (m + 1) * (fwdUs + bwdUs) + 2 * transferUs;
  for (let step = 0; step < steps; step++) {
    const s = step * stepUs;
    launches = [];
    const sentUs = (i: number): number => s + fwdUs * (i + 1) + transferUs;
    const bwd1Us = (i: number): number => s + fwdUs * (m + 1) + transferUs + bwdUs * i;
    const gradSentUs = (i: number): number => bwd1Us(i + 1) + transferUs;
    // The previous step's last send on stage 1 freed its stream; the very first step's at 0.
    let free1Us = step === 0 ? 0 : gradSentUs(m - 1) - stepUs;
    for (let i = 0; i < m; i++) {
      b.kernel(compute[0]!, (s + fwdUs * i) * us, (s + fwdUs * (i + 1)) * us, gemm);
      transfer(0, 'send', s + fwdUs * (i + 1), sentUs(i));
      transfer(1, 'recv', free1Us, sentUs(i));
      free1Us = sentUs(i);
      b.kernel(compute[1]!, sentUs(i) * us, (sentUs(i) + fwdUs) * us, gemm);
    }
    let free0Us = sentUs(m - 1);
    for (let i = 0; i < m; i++) {
      b.kernel(compute[1]!, bwd1Us(i) * us, bwd1Us(i + 1) * us, gemm);
      transfer(1, 'send', bwd1Us(i + 1), gradSentUs(i));
      transfer(0, 'recv', free0Us, gradSentUs(i));
      free0Us = gradSentUs(i);
      b.kernel(compute[0]!, gradSentUs(i) * us, (gradSentUs(i) + bwdUs) * us, gemm);
    }
    if (allReduceUs > 0) {
      // Alone on each GPU: stage 0's while it waits for its first gradient, stage 1's after its
      // last send.
      const fromUs = [sentUs(m - 1), gradSentUs(m - 1)];
      for (const rank of [0, 1]) {
        const from = fromUs[rank]! * us;
        allReduces.push(b.kernel(comm[rank]!, from, from + allReduceUs * us, allReduce));
      }
    }
    if (marked) {
      launches.forEach(([first, last], rank) => {
        b.range(
          host[rank]!,
          `ProfilerStep#${step}`,
          first - 2 * us,
          last + 5 * us,
          'user_annotation',
        );
      });
    }
  }
  return { b, p2p, allReduces };
}

describe('pipeline stages in the communication figures', () => {
  it("leaves the stages' sends and receives out of exposed communication, keeping collectives in", () => {
    const { b, allReduces } = gpipeJob({ allReduceUs: 100 });
    const a = analyzeTrace(b.trace);
    // 3 steps × 2 ranks × 100 µs of all-reduce, each alone; the send/recv kernels are not there.
    expect(a.metrics.overlap.commCompute).toBe(0);
    expect(a.metrics.overlap.exposedCommunicationNs).toBe(600 * us);
    // The kernel classes still count every NCCL kernel: the all-reduces and the send/recv.
    expect(a.metrics.kernelClasses.communicationNs).toBeGreaterThan(600 * us);
    const f = a.findings.find((x) => x.ruleId === 'exposed-communication')!;
    expect(f.message).toContain('mostly ncclDevKernel_AllReduce_Sum_f32_RING_LL 600 µs.');
    expect(f.message).not.toContain('SendRecv');
    expect([...f.opIndices].sort((x, y) => x - y)).toEqual(allReduces);
  });

  it('gives no comm/compute overlap for a pipeline without collectives, and no DDP advice', () => {
    const a = analyzeTrace(gpipeJob().b.trace);
    expect(a.metrics.overlap.commCompute).toBeNull();
    expect(a.metrics.overlap.exposedCommunicationNs).toBe(0);
    expect(a.findings.map((f) => f.ruleId)).not.toContain('exposed-communication');
  });

  it("puts a step's sends and receives in a column of their own, apart from its collectives", () => {
    const a = analyzeTrace(gpipeJob({ allReduceUs: 100 }).b.trace);
    // Rank 1's ProfilerStep#1 runs from 2 µs before its first launch, 5 µs before its first
    // receive (the previous step's last send ended at 1320 µs), to 5 µs after its last, 5 µs
    // before its last send starts: [1313, 2830] µs. In it: the end of step 0's last send
    // [1313, 1320], its receives [1320, 1930] (the fill, then one beside each forward) and 3 of
    // its 4 sends of 10 µs; the all-reduce of step 0 [1320, 1420] (its own comes at 2840).
    const step = a.steps.steps.find((s) => s.name === 'ProfilerStep#1' && s.rank === 1)!;
    expect([step.startNs / us, step.endNs / us]).toEqual([1313, 2830]);
    expect(step.pointToPointNs).toBe((7 + 610 + 3 * 10) * us);
    expect(step.communicationNs).toBe(100 * us);
    expect(step.exposedCommunicationNs).toBe(100 * us);
  });

  it('still reads a send/recv outside a pipeline as communication to overlap', () => {
    // One rank alone sends and receives: nothing says it is a pipeline stage.
    const b = new TestTraceBuilder();
    const nccl = b.rankStream(0, 17);
    b.kernel(b.rankStream(0, 7), 100 * us, 600 * us, gemm);
    b.kernel(nccl, 0, 100 * us, sendRecv);
    const a = analyzeTrace(b.trace);
    expect(a.metrics.overlap.exposedCommunicationNs).toBe(100 * us);
    const f = a.findings.find((x) => x.ruleId === 'exposed-communication')!;
    expect(f.message).toContain('ncclDevKernel_SendRecv 100 µs');
    expect(a.findings.map((x) => x.ruleId)).not.toContain('pipeline-bubble');
  });
});

describe('pipeline-bubble rule', () => {
  it("gives the stages' waiting, the bubble of the stage that waits least and the schedule's", () => {
    const { b, p2p } = gpipeJob();
    const a = analyzeTrace(b.trace);
    const { pipeline } = a.ranks!;
    // Both ranks start at 0; rank 1 ends first, at its last send, 2 × 1520 + 1320 = 4360 µs.
    expect([pipeline!.fromNs, pipeline!.toNs]).toEqual([0, 4360 * us]);
    // Waiting with no compute beside it. Rank 0: its last send and first gradient receive,
    // [400, 720] µs into each step, 3 × 320 µs. Rank 1: its first receive of each step, [0, 110]
    // µs, then [1320, 1630] and [2840, 3150] (the previous step's last send on, 310 µs each), and
    // its last send of each step, 3 × 10 µs: 760 µs.
    expect(pipeline!.stages.map((s) => s.pointToPointAloneNs / us)).toEqual([960, 760]);
    // Rank 1 computes 3 × 4 × 300 = 3600 µs: it waits 760 / (3600 + 760) = 17.4%.
    expect(pipeline!.stages[1]!.computeNs).toBe(3600 * us);
    const f = a.findings.find((x) => x.ruleId === 'pipeline-bubble')!;
    expect(f.severity).toBe('warning');
    expect(f.title).toBe("Pipeline stages wait out the schedule's bubble");
    expect(f.message).toBe(
      'Ranks 0 and 1 pass activations and gradients point to point (NCCL send/recv): they are ' +
        'pipeline stages. Over the 4.36 ms all of them worked they waited 1.72 ms (19.7% of ' +
        'their time) in send and receive kernels with no compute beside them; the shortest of ' +
        'the 48 took 10 µs, so that is mostly waiting for the other stage, not moving data. ' +
        'Rank 1, which waits least, waited 760 µs, 17.4% of its time computing or waiting: ' +
        "every stage loses about that share to the schedule's fill and drain (the bubble). " +
        'Each stage receives 4 times a step: if those are 4 microbatches of a GPipe or 1F1B ' +
        'schedule over 2 stages, the bubble is (p − 1)/(m + p − 1) = 1/5 = 20.0% of a step ' +
        'with equal stages. More microbatches per step shrink the bubble (twice as many halve ' +
        'it: about 380 µs here, if the smaller microbatches run as efficiently), and so does an ' +
        "interleaved schedule (several model chunks per rank, as Megatron's virtual pipeline " +
        'stages); overlapping the receives with compute does not, since a stage has nothing to ' +
        'compute until its input arrives.',
    );
    expect(f.estimatedSavingNs).toBe(380 * us);
    // The longest first, 310 µs each in the order they were recorded: stage 0's first gradient
    // receive of each step and stage 1's fill from the second step on.
    expect(f.opCount).toBe(p2p.length);
    const endsUs = f.opIndices.slice(0, 5).map((op) => b.trace.ops.columns().endNs[op]! / us);
    expect(endsUs).toEqual([720, 1630, 2240, 3150, 3760]);
  });

  it('leaves the schedule out when no profiler step or receive range tells the microbatches', () => {
    const f = analyzeTrace(gpipeJob({ marked: false }).b.trace).findings.find(
      (x) => x.ruleId === 'pipeline-bubble',
    )!;
    expect(f.message).toContain('Rank 1, which waits least, waited 760 µs, 17.4%');
    expect(f.message).not.toContain('times a step');
    expect(f.message).toContain('More microbatches per step shrink the bubble');
  });

  it('keeps quiet when the bubble is a small share of the step', () => {
    // 32 microbatches: rank 1 waits 110 + 2 × 310 + 3 × 10 = 760 µs against 3 × 32 × 300 µs of
    // compute, 2.6%.
    const a = analyzeTrace(gpipeJob({ microbatches: 32 }).b.trace);
    expect(a.ranks!.pipeline!.stages[1]!.pointToPointAloneNs).toBe(760 * us);
    expect(a.findings.map((f) => f.ruleId)).not.toContain('pipeline-bubble');
  });
});
