import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { importTrace, mergeRanks } from '@streamscope/importers';
import type { Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { ruleIds } from './types.ts';

// Real traces recorded with nsys 2025.3.1 and PyTorch's profiler (fixtures/, scrubbed).
const fixtures = [
  'nsys/2025.3.1/train.json',
  'nsys/2025.3.1/train.sqlite',
  'nsys/2025.3.1/graph.json.gz',
  'kineto/train.pt.trace.json.gz',
];

async function load(relative: string): Promise<Trace> {
  const path = fileURLToPath(new URL(`../../../fixtures/${relative}`, import.meta.url));
  const buffer = readFileSync(path);
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
  return (await importTrace(bytes, { fileName: relative })).trace;
}

describe('analysis of recorded traces', () => {
  for (const file of fixtures) {
    it(`accounts for every ns of ${file} and names only real ops`, async () => {
      const trace = await load(file);
      const a = analyzeTrace(trace);
      const m = a.metrics;
      expect(m.makespanNs).toBeGreaterThan(0);
      // One device: its busy time and its idle gaps partition the makespan.
      expect(m.deviceBusyNs + a.gaps.device.totalNs).toBeCloseTo(m.makespanNs, 3);
      for (const ratio of [m.overlap.all, m.overlap.htoD, m.overlap.dtoH, m.deviceUtilization]) {
        expect(ratio).toBeGreaterThanOrEqual(0);
        expect(ratio).toBeLessThanOrEqual(1);
      }
      const kernelCount = a.kernelStats.reduce((sum, row) => sum + row.count, 0);
      expect(kernelCount).toBe(m.opCounts.kernel ?? 0);
      for (const f of a.findings) {
        expect(ruleIds).toContain(f.ruleId);
        expect(f.opIndices.every((op) => op >= 0 && op < trace.ops.count)).toBe(true);
        expect(f.estimatedSavingNs).toBeGreaterThanOrEqual(0);
      }
      expect(JSON.parse(JSON.stringify(a))).toEqual(a);
    });
  }

  it('finds the stream synchronizes of the nsys training run and what they cost', async () => {
    const trace = await load('nsys/2025.3.1/train.json');
    const a = analyzeTrace(trace);
    expect(a.gaps.device.countByCause['host-sync']).toBeGreaterThan(0);
    const f = a.findings.find((x) => x.ruleId === 'device-sync')!;
    const cols = trace.ops.columns();
    for (const op of f.opIndices) {
      expect(trace.strings.get(cols.nameId[op]!)).toMatch(/^cudaStreamSynchronize/);
    }
    // The mostly idle run (host-side setup dominates) is flagged.
    expect(a.findings.map((x) => x.ruleId)).toEqual(
      expect.arrayContaining(['gpu-gaps', 'low-utilization']) as unknown,
    );
  });

  it('gives the same answers for the JSON and the SQLite export of one run', async () => {
    const fromJson = analyzeTrace(await load('nsys/2025.3.1/train.json'));
    const fromSqlite = analyzeTrace(await load('nsys/2025.3.1/train.sqlite'));
    expect(fromSqlite.metrics.makespanNs).toBe(fromJson.metrics.makespanNs);
    expect(fromSqlite.metrics.busyNsByEngine).toEqual(fromJson.metrics.busyNsByEngine);
    expect(fromSqlite.gaps.device.countByCause).toEqual(fromJson.gaps.device.countByCause);
    expect(fromSqlite.findings.map((f) => f.ruleId)).toEqual(
      fromJson.findings.map((f) => f.ruleId),
    );
  });

  it("blames the kineto run's largest gap on the CPU op the host thread was in", async () => {
    const trace = await load('kineto/train.pt.trace.json.gz');
    const gaps = analyzeTrace(trace).gaps.device.listed;
    const largest = gaps.reduce((x, y) => (y.durNs > x.durNs ? y : x));
    // The autograd thread spent 2.36 ms in the first aten::fill_ (zero_grad) before it launched
    // the fill kernel: the GPU idled 2.66 ms, not because of the cudaLaunchKernel call.
    expect(largest.cause).toBe('host-busy');
    expect(trace.strings.get(trace.ranges.columns().nameId[largest.causeRange]!)).toBe(
      'aten::fill_',
    );
    expect(largest.detail).toContain('(host busy in aten::fill_, not blocked by CUDA)');
    expect(largest.causeNs).toBeLessThanOrEqual(largest.durNs);
  });

  it("charges the kineto run's pageable copies only what their own calls held the GPU", async () => {
    const f = analyzeTrace(await load('kineto/train.pt.trace.json.gz')).findings.find(
      (x) => x.ruleId === 'pageable-copy',
    )!;
    // Three pageable copies with no pinned copy to compare with: the saving is the 36.87 µs of
    // compute they could run beside (no stream gap names them as its cause; a gap without a
    // cause, op -1, is nobody's).
    expect(f.opIndices).toEqual([497, 660, 817]);
    expect(f.estimatedSavingNs).toBe(36_866);
  });

  it('splits busy time exactly between two halves of a window', async () => {
    const trace = await load('kineto/train.pt.trace.json.gz');
    const whole = analyzeTrace(trace).metrics;
    const midNs = (whole.gpuFromNs + whole.gpuToNs) / 2;
    const first = analyzeTrace(trace, { fromNs: whole.gpuFromNs, toNs: midNs }).metrics;
    const second = analyzeTrace(trace, { fromNs: midNs, toNs: whole.gpuToNs }).metrics;
    expect(first.busyNsByEngine.compute + second.busyNsByEngine.compute).toBeCloseTo(
      whole.busyNsByEngine.compute,
      3,
    );
    expect(first.deviceBusyNs + second.deviceBusyNs).toBeCloseTo(whole.deviceBusyNs, 3);
  });
});

describe('a recorded trace whose launch links disagree with its GPU clock', () => {
  it('leaves launch latency out of nccl2-rank0 and names the skewed step', async () => {
    const a = analyzeTrace(await load('kineto/nccl2-rank0.pt.trace.json.gz'));
    // Every linked kernel starts ~1.68 s after its call while the GPU worked 85.6 ms.
    const ll = a.metrics.launchLatency;
    expect(ll.all.count).toBe(0);
    expect(ll.linksDisagree).not.toBeNull();
    expect(ll.linksDisagree!.p50Ns).toBeGreaterThan(ll.linksDisagree!.gpuSpanNs);
    expect(a.steps.skewedSteps).toEqual(['ProfilerStep#3']);
    const f = a.findings.find((x) => x.ruleId === 'launch-links-disagree')!;
    // The collectives that ran alone, the longest alone first (a tally that lost op 1716's
    // 4.07 ms once sent it to the end, among the shortest).
    const comm = a.findings.find((x) => x.ruleId === 'exposed-communication')!;
    expect(comm.opIndices).toEqual([
      1450, 1556, 1662, 1582, 1430, 1688, 1476, 1570, 1429, 1676, 1464, 1435, 1520, 1732, 1626,
      1504, 1434, 1716, 1610, 1598, 1704, 1433, 1492, 1437, 1748, 1536, 1642,
    ]);
    expect(f.message).toMatch(
      /^launch→kernel links in this trace span up to 1\.708 s .* while the GPU worked 85\.62 ms: the host and GPU clocks or correlation ids disagree; launch latency is left out\. For the same reason ProfilerStep#3 spans/,
    );
  });
});

describe('DDP on two GPUs, recorded on the two-H200 machine', () => {
  it("measures the gradient all-reduces overlapping the backward pass, from both ranks' kineto traces", async () => {
    const files = [
      'kineto/ddp2gpu-rank0.pt.trace.json.gz',
      'kineto/ddp2gpu-rank1.pt.trace.json.gz',
    ];
    const { trace } = mergeRanks(
      await Promise.all(files.map(async (fileName) => ({ trace: await load(fileName), fileName }))),
    );
    const { overlap } = analyzeTrace(trace).metrics;
    // DDP all-reduces each bucket while backward computes earlier layers: 79% of the 18.3 ms
    // of communication ran beside compute when recorded.
    expect(overlap.commCompute).toBeGreaterThan(0.6);
    expect(overlap.commCompute).toBeLessThan(0.95);
    expect(overlap.exposedCommunicationNs).toBeGreaterThan(0);
  });

  it('measures the same overlap in the nsys export of the run (init and warm-up included)', async () => {
    const { overlap } = analyzeTrace(await load('nsys/2025.3.1/ddp2gpu.sqlite.gz')).metrics;
    // 39% of 50.7 ms: NCCL's set-up collectives ran alone before training began.
    expect(overlap.commCompute).toBeGreaterThan(0.25);
    expect(overlap.commCompute).toBeLessThan(0.6);
  });
});

describe('FSDP on two GPUs, recorded on the two-H200 machine', () => {
  async function merged(run: string): Promise<Trace> {
    const files = [`kineto/${run}-rank0.pt.trace.json.gz`, `kineto/${run}-rank1.pt.trace.json.gz`];
    return mergeRanks(
      await Promise.all(files.map(async (fileName) => ({ trace: await load(fileName), fileName }))),
    ).trace;
  }

  it("counts FSDP's all-gathers and reduce-scatters as communication, partly under compute", async () => {
    const { metrics } = analyzeTrace(await merged('fsdp2gpu'));
    // Each layer's parameters all-gathered before its forward and backward, its gradients
    // reduce-scattered after: 84 ms of NCCL kernels over the two ranks, 28% beside compute
    // when recorded (the first all-gathers of a step wait for nothing to prefetch behind).
    expect(metrics.kernelClasses.communicationNs).toBeGreaterThan(metrics.kernelClasses.computeNs);
    expect(metrics.overlap.commCompute).toBeGreaterThan(0.1);
    expect(metrics.overlap.commCompute).toBeLessThan(0.5);
  });

  it('never says pinning saves more than the pageable copies took', async () => {
    // The nsys export: 324 pageable copies of 127.8 ms, a third slower than the run's pinned ones
    // and mostly beside no kernel. The saving was their slowness plus their whole exposed time.
    const trace = await load('nsys/2025.3.1/fsdp2gpu.sqlite.gz');
    const f = analyzeTrace(trace).findings.find((x) => x.ruleId === 'pageable-copy')!;
    expect(f.message).toMatch(/^324 async copies .* instead of 127\.8 ms\./);
    // It was 132.1 ms.
    expect(f.estimatedSavingNs).toBeGreaterThan(100e6);
    expect(f.estimatedSavingNs).toBeLessThanOrEqual(127.85e6);
    // It lists the 50 that weigh most of the 324 it points at, and says 324.
    expect(f.opIndices).toHaveLength(50);
    expect(f.opCount).toBe(324);
  });

  it('names the rank the other waits for inside its collectives, not the one that idles least', async () => {
    // Rank 0's host launched late (its GPU idled 47 ms); rank 1's all-gathers spun for it
    // (73 ms of NCCL kernels against rank 0's 11 ms) and its GPU hardly idled.
    const fsdp = analyzeTrace(await merged('fsdp2gpu'));
    const [rank0, rank1] = fsdp.ranks!.ranks;
    expect(rank0!.idleNs).toBeGreaterThan(rank1!.idleNs);
    expect(rank1!.communicationNs).toBeGreaterThan(3 * rank0!.communicationNs);
    expect(fsdp.ranks!.straggler).toMatchObject({ rank: 0, metric: 'communication' });
    expect(fsdp.findings.find((f) => f.ruleId === 'rank-straggler')?.title).toBe(
      'Rank 0 is the straggler',
    );
    // Both ranks name their steps ProfilerStep#1..3: each step says its rank.
    expect(fsdp.steps.steps.map((s) => `${s.name} · rank ${s.rank}`).sort()).toEqual(
      [1, 2, 3].flatMap((n) => [0, 1].map((r) => `ProfilerStep#${n} · rank ${r}`)).sort(),
    );
    // The same program watched live under torchrun (a run of its own): rank 0 again.
    const live = analyzeTrace(await load('runs/profile-torchrun-fsdp2gpu-h200x2.sstrace'));
    expect(live.ranks!.ranks.map((r) => r.rank)).toEqual([0, 1]);
    expect(live.ranks!.straggler).toMatchObject({ rank: 0, metric: 'communication' });
    // The same in the two-GPU NCCL run: rank 1 idled 3.4 ms while rank 0 spun 5.8 ms in NCCL.
    const nccl = analyzeTrace(await merged('nccl2gpu'));
    expect(nccl.ranks!.straggler).toMatchObject({ rank: 1, metric: 'communication' });
  });

  it('reads pipeline stages by their compute, not by the bubble they wait for in their receives', async () => {
    // pt-pipeline.py: GPipe over NCCL send/recv, 4 microbatches a step, rank r is stage r.
    // Balanced, 4 layers a stage: each stage waits in a receive while the other fills or
    // drains the pipeline (a fifth of a step in theory, (p − 1) / (m + p − 1)), as recorded:
    const balanced = analyzeTrace(await merged('pp2gpu'));
    const { pipeline, straggler } = balanced.ranks!;
    expect(pipeline!.stages.map((s) => s.rank)).toEqual([0, 1]);
    const windowNs = pipeline!.toNs - pipeline!.fromNs;
    for (const stage of pipeline!.stages) {
      // 26.8% and 23.3% of the 41.91 ms both worked, nearly all of it in receive kernels.
      expect((windowNs - stage.computeNs) / windowNs).toBeGreaterThan(0.15);
      expect((windowNs - stage.computeNs) / windowNs).toBeLessThan(0.35);
      expect(stage.pointToPointNs).toBeGreaterThan(3 * stage.idleNs);
    }
    // Over each rank's own GPU span rank 0 seems to compute more (35.43 against 32.13 ms): its
    // span starts 3.7 ms earlier, in work rank 1's profiler did not record. Over the window both
    // worked stage 1 computes more (32.13 against 30.69 ms: it has the loss and its first
    // layer's input gradient), 2.3% above the median: no stage to rebalance.
    const [rank0, rank1] = balanced.ranks!.ranks;
    expect(rank0!.computeNs).toBeGreaterThan(rank1!.computeNs);
    expect(straggler).toMatchObject({ rank: 1, metric: 'compute' });
    expect(straggler!.diffNs).toBeLessThan(0.05 * straggler!.medianNs);
    expect(balanced.findings.map((f) => f.ruleId)).not.toContain('rank-straggler');
    // Stage 1 with 6 layers to stage 0's 4: 18 GEMMs a microbatch against 11 (stage 0 computes
    // no gradient for its input). Stage 0 waits for it each backward, beyond the bubble.
    const slow = analyzeTrace(await merged('pp2gpu-4-6'));
    const s = slow.ranks!.straggler!;
    expect(s).toMatchObject({ rank: 1, metric: 'compute' });
    // 55.69 against 35.16 ms, 1.58×.
    expect(s.valueNs / s.minNs).toBeGreaterThan(1.4);
    expect(s.valueNs / s.minNs).toBeLessThan(1.8);
    const found = slow.findings.find((f) => f.ruleId === 'rank-straggler')!;
    expect(found.title).toBe("Rank 1 is the pipeline's bottleneck stage");
    expect(found.severity).toBe('warning');
    expect(found.message).toMatch(
      /^Ranks 0 and 1 pass activations and gradients point to point \(NCCL send\/recv\)/,
    );
    // Out of compute: rank 0 30.21 ms of the 65.37 ms window, rank 1 9.683 ms (14.8%).
    expect(found.message).toMatch(
      /\(receiving or idle\) is rank 0: 3\d\.\d+ ms, against rank 1's 9\.\d+ ms \(1\d\.\d%\), the pipeline's fill and drain/,
    );
    // The same balanced job under nsys (one export, a rank per process): stages, no straggler.
    const file = 'nsys/2025.3.1/pp2gpu.sqlite.gz';
    const nsys = analyzeTrace(mergeRanks([{ trace: await load(file), fileName: file }]).trace);
    expect(nsys.ranks!.pipeline!.stages).toHaveLength(2);
    expect(nsys.findings.map((f) => f.ruleId)).not.toContain('rank-straggler');
    // An all-to-all runs NCCL's SendRecv kernel too, but it is a collective.
    expect(analyzeTrace(await merged('nccl2gpu')).ranks!.pipeline).toBeUndefined();
  });

  it("reads the stages' receive waits as the bubble, not as communication to overlap", async () => {
    // Balanced: 18.31 ms of the stages' 83.82 ms in SendRecv kernels with no compute beside
    // them. Read as collectives it was 'communication/compute overlap 1.7%' with DDP bucket and
    // FSDP prefetch advice.
    const balanced = analyzeTrace(await merged('pp2gpu'));
    const ids = balanced.findings.map((f) => f.ruleId);
    expect(ids).not.toContain('exposed-communication');
    expect(balanced.metrics.overlap.commCompute).toBeNull();
    expect(balanced.metrics.overlap.exposedCommunicationNs).toBe(0);
    expect(balanced.metrics.kernelClasses.communicationNs).toBeGreaterThan(15e6);
    // Each step's sends and receives stand apart from its (absent) collectives.
    for (const step of balanced.steps.steps) {
      expect(step.communicationNs).toBe(0);
      expect(step.pointToPointNs).toBeGreaterThan(0);
    }
    const bubble = balanced.findings.find((f) => f.ruleId === 'pipeline-bubble')!;
    expect(bubble.severity).toBe('warning');
    // Rank 1 waits least: 7.76 ms, 19.5% of its compute and waiting, where GPipe with 4
    // microbatches over 2 stages idles 1/5 of a step; the shortest of the 50 kernels took 14.75 µs.
    expect(bubble.message).toMatch(
      /the shortest of the 50 took 1\d\.\d+ µs, so that is mostly waiting for the other stage, not moving data\. Rank 1, which waits least, waited 7\.\d+ ms, 19\.\d% of its time computing or waiting/,
    );
    expect(bubble.message).toContain(
      'Each stage receives 4 times a step: if those are 4 microbatches of a GPipe or 1F1B schedule over 2 stages, the bubble is (p − 1)/(m + p − 1) = 1/5 = 20.0% of a step',
    );
    expect(bubble.message).not.toMatch(/bucket_cap_mb|prefetch/);
    // Twice the microbatches halve the 7.76 ms.
    expect(bubble.estimatedSavingNs).toBeGreaterThan(3.5e6);
    expect(bubble.estimatedSavingNs).toBeLessThan(4.5e6);
    // 4 and 6 layers: no 'could save up to 29.48 ms' by overlapping; the bubble (rank 1's 8.3 ms,
    // 13.0%) beside the bottleneck stage, which says the rest.
    const slow = analyzeTrace(await merged('pp2gpu-4-6'));
    expect(slow.findings.map((f) => f.ruleId)).not.toContain('exposed-communication');
    expect(slow.findings.map((f) => f.ruleId)).toContain('rank-straggler');
    const slowBubble = slow.findings.find((f) => f.ruleId === 'pipeline-bubble')!;
    expect(slowBubble.severity).toBe('info');
    expect(slowBubble.message).toMatch(/Rank 1, which waits least, waited 8\.\d+ ms, 13\.\d%/);
    // The nsys export names no receive (NCCL's NVTX has only ncclGroupEnd there) and no
    // ProfilerStep: the bubble without the schedule's figure. Its collectives (the set-up's)
    // alone are communication now.
    const file = 'nsys/2025.3.1/pp2gpu.sqlite.gz';
    const nsys = analyzeTrace(mergeRanks([{ trace: await load(file), fileName: file }]).trace);
    const nsysBubble = nsys.findings.find((f) => f.ruleId === 'pipeline-bubble')!;
    expect(nsysBubble.message).not.toContain('times a step');
    expect(nsys.metrics.overlap.exposedCommunicationNs).toBeLessThan(
      0.05 * nsys.metrics.kernelClasses.communicationNs,
    );
  });
});
