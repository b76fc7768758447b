import { OpFlag, OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { launchLatencies } from './launch.ts';
import { queueDepthSeries } from './queue-depth.ts';
import { computeMetrics, summarizeRun } from './metrics.ts';
import { copyBandwidthsGBps } from './stats.ts';
import { TestTraceBuilder, deviceToPinned, pinnedToDevice } from './test-trace-builder.ts';

/** Two streams: s1 copies H2D [0,100) then runs a kernel [100,300); s2 copies H2D [100,200). */
function twoStreams(): TestTraceBuilder {
  const b = new TestTraceBuilder();
  const s1 = b.stream(13);
  const s2 = b.stream(14);
  b.gpu({
    track: s1,
    kind: OpKind.CopyHtoD,
    startNs: 0,
    endNs: 100,
    bytes: 1000,
    memKinds: pinnedToDevice,
  });
  b.kernel(s1, 100, 300, 'scale');
  b.gpu({
    track: s2,
    kind: OpKind.CopyHtoD,
    startNs: 100,
    endNs: 200,
    bytes: 500,
    memKinds: pinnedToDevice,
  });
  b.gpu({
    track: s2,
    kind: OpKind.CopyDtoH,
    startNs: 250,
    endNs: 400,
    bytes: 300,
    memKinds: deviceToPinned,
  });
  return b;
}

describe('summarizeRun', () => {
  it('reports makespan, op counts, engine busy time and copy/compute overlap', () => {
    const summary = summarizeRun(twoStreams().trace);
    expect(summary.makespanNs).toBe(400);
    expect(summary.opCounts).toEqual({ kernel: 1, 'copy-htod': 2, 'copy-dtoh': 1 });
    // H2D union [0,200) = 200; D2H [250,400) = 150; compute [100,300) = 200.
    expect(summary.busyNsByEngine).toEqual({
      compute: 200,
      copyHtoD: 200,
      copyDtoH: 150,
      copyDtoD: 0,
      copyPtoP: 0,
      memset: 0,
    });
    // ∪copies = [0,200) ∪ [250,400) = 350; ∩ kernel [100,300) = 100 + 50 = 150; 150/350.
    expect(summary.copyComputeOverlap).toBeCloseTo(150 / 350, 12);
    expect(summary.gpuOpCount).toBe(4);
    expect(summary.hostOpCount).toBe(0);
    expect(summary.commComputeOverlap).toBeNull();
  });

  it('counts GPU ops and host calls apart and gives communication/compute overlap', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    const launch = (t: number) => ({
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: t,
      endNs: t + 5,
    });
    b.kernel(s1, 100, 300, 'gemm', launch(0));
    b.kernel(s2, 200, 600, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)', launch(10));
    const summary = summarizeRun(b.trace);
    // 2 kernels on streams + 2 launch calls on the host thread = the trace's 4 ops.
    expect(b.trace.ops.count).toBe(4);
    expect(summary.gpuOpCount).toBe(2);
    expect(summary.hostOpCount).toBe(2);
    // communication [200,600) = 400 ns; ∩ compute [100,300) = 100 ns; 100/400.
    expect(summary.commComputeOverlap).toBeCloseTo(0.25, 12);
    // No copies: no ratio, not 0.
    expect(summary.copyComputeOverlap).toBeNull();
  });

  it('reports zeros for a trace with no GPU ops', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    b.apiCall({ hostTrack: host, name: 'cudaMalloc', startNs: 0, endNs: 10 });
    const summary = summarizeRun(b.trace);
    expect(summary.makespanNs).toBe(0);
    expect(summary.opCounts).toEqual({});
    expect(summary.copyComputeOverlap).toBeNull();
  });
});

describe('computeMetrics', () => {
  it('splits overlap by direction', () => {
    const m = computeMetrics(twoStreams().trace);
    // H2D [0,200) ∩ K [100,300) = 100 of 200; D2H [250,400) ∩ K = 50 of 150.
    expect(m.overlap.htoD).toBeCloseTo(0.5, 12);
    expect(m.overlap.dtoH).toBeCloseTo(50 / 150, 12);
    expect(m.overlap.overlappedNs).toBe(150);
    expect(m.overlap.copyBusyNs).toBe(350);
  });

  it('reports busy time per stream and device utilization', () => {
    const m = computeMetrics(twoStreams().trace);
    expect(m.streams.map((s) => [s.label, s.busyNs, s.opCount])).toEqual([
      ['Stream 13', 300, 2],
      ['Stream 14', 250, 2],
    ]);
    // Device busy = [0,400) with no idle instant = 400 of 400.
    expect(m.deviceBusyNs).toBe(400);
    expect(m.deviceUtilization).toBe(1);
  });

  it('profiles how many copies run at once', () => {
    const m = computeMetrics(twoStreams().trace);
    // Copies: [0,100) one, [100,200) one, [200,250) none, [250,400) one: never two at once.
    expect(m.concurrency.copyNsAtLevel).toEqual([50, 350]);
    expect(m.concurrency.maxCopies).toBe(1);
    expect(m.concurrency.kernelNsAtLevel).toEqual([200, 200]);
  });

  it('computes achieved bandwidth per direction in GB/s', () => {
    const m = computeMetrics(twoStreams().trace);
    const h2d = m.bandwidth.find((r) => r.kind === 'copy-htod');
    // 1500 B over 200 ns = 7.5 B/ns = 7.5 GB/s; per op 1000/100 = 10 and 500/100 = 5.
    const perOp = copyBandwidthsGBps(twoStreams().trace);
    // Ops in order: H2D 1000 B / 100 ns, the kernel (none), H2D 500 / 100, D2H 300 / 150.
    expect(Array.from(perOp)).toEqual([10, NaN, 5, 2]);
    expect(h2d).toMatchObject({
      count: 2,
      bytes: 1500,
      totalNs: 200,
      avgGBps: 7.5,
      minGBps: 5,
      maxGBps: 10,
    });
  });

  it('leaves copies of unknown size out of bandwidth, and says unknown (NaN) when none has one', () => {
    const b = twoStreams();
    const s = b.stream(15);
    // An import that recorded no size: bytes 0, flagged unknown; it must not pull H2D to 5 GB/s.
    b.gpu({
      track: s,
      kind: OpKind.CopyHtoD,
      startNs: 300,
      endNs: 400,
      flags: OpFlag.BytesUnknown,
    });
    b.gpu({
      track: s,
      kind: OpKind.CopyDtoD,
      startNs: 400,
      endNs: 500,
      flags: OpFlag.BytesUnknown,
    });
    const m = computeMetrics(b.trace);
    // H2D: still 1500 B over the 200 ns of the two sized copies; all 3 counted, 300 ns of time.
    expect(m.bandwidth.find((r) => r.kind === 'copy-htod')).toMatchObject({
      count: 3,
      bytes: 1500,
      totalNs: 300,
      avgGBps: 7.5,
      minGBps: 5,
      maxGBps: 10,
    });
    const dtod = m.bandwidth.find((r) => r.kind === 'copy-dtod')!;
    expect(dtod.count).toBe(1);
    expect([dtod.avgGBps, dtod.minGBps, dtod.maxGBps]).toEqual([NaN, NaN, NaN]);
    expect(Array.from(copyBandwidthsGBps(b.trace)).slice(-2)).toEqual([NaN, NaN]);
  });

  it('counts kernels that run at once', () => {
    const b = new TestTraceBuilder();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    b.kernel(s1, 0, 100);
    b.kernel(s2, 40, 160);
    const m = computeMetrics(b.trace);
    // One kernel on [0,40) and [100,160) = 100 ns, two on [40,100) = 60 ns; span 160.
    expect(m.concurrency.kernelNsAtLevel).toEqual([0, 100, 60]);
    expect(m.concurrency.maxKernels).toBe(2);
  });

  it('clips every interval to a window', () => {
    const m = computeMetrics(twoStreams().trace, { fromNs: 150, toNs: 260 });
    // Kernel [150,260) = 110; H2D [150,200) = 50; D2H [250,260) = 10.
    expect(m.busyNsByEngine.compute).toBe(110);
    expect(m.busyNsByEngine.copyHtoD).toBe(50);
    expect(m.busyNsByEngine.copyDtoH).toBe(10);
    expect(m.makespanNs).toBe(110);
  });

  it('measures launch latency and queue depth from the API calls', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(7, 'legacy-default');
    // Three launches at 0, 10, 20 (each 5 ns long); kernels start at 30, 60, 90.
    for (let k = 0; k < 3; k++) {
      b.kernel(s, 30 + 30 * k, 60 + 30 * k, 'k', {
        hostTrack: host,
        name: 'cudaLaunchKernel',
        startNs: 10 * k,
        endNs: 10 * k + 5,
      });
    }
    const m = computeMetrics(b.trace);
    // Latencies: 30-5 = 25, 60-15 = 45, 90-25 = 65.
    expect(m.launchLatency.kernels).toMatchObject({
      count: 3,
      minNs: 25,
      p50Ns: 45,
      maxNs: 65,
      meanNs: 45,
    });
    // Depth: 1 at 0, 2 at 10, 3 at 20, 2 at 30, 1 at 60, 0 at 90: max 3.
    expect(m.queueDepth).toEqual([
      expect.objectContaining({ label: 'Stream 7', maxDepth: 3 }) as unknown,
    ]);
    // Over the window [30,120): depth 2 for 30 ns, 1 for 30 ns, 0 for 30 → 90/90 = 1.
    expect(m.queueDepth[0]!.meanDepth).toBeCloseTo(1, 12);
    const series = queueDepthSeries(b.trace, s);
    expect(Array.from(series.timesNs)).toEqual([0, 10, 20, 30, 60, 90]);
    expect(Array.from(series.depth)).toEqual([1, 2, 3, 2, 1, 0]);
    const perOp = launchLatencies(b.trace);
    // Host API calls have no latency of their own; kernels 25, 45, 65 as above.
    expect(Array.from(perOp).filter((v) => !Number.isNaN(v))).toEqual([25, 45, 65]);
  });
});
