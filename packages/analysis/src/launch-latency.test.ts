import { OpFlag, OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { launchLatencies, launchLatencyOfNs } from './launch.ts';
import { TestTraceBuilder, pageableToDevice, pinnedToDevice } from './test-trace-builder.ts';

const us = 1000;

describe('launchLatencyOfNs', () => {
  it('runs from the end of a non-blocking call to the GPU start', () => {
    // API [100, 110], GPU starts at 150: 40 ns.
    expect(launchLatencyOfNs(150, 100, 110, false)).toBe(40);
  });

  it('is 0 for a non-blocking call that returned after its op began', () => {
    // cudaLaunchKernel [100, 130] with the kernel at 105: queued and started in time.
    expect(launchLatencyOfNs(105, 100, 130, false)).toBe(0);
  });

  it('runs from the start of a blocking call that returned after its GPU op began', () => {
    // cudaMemcpy [100, 900] with the copy at [130, 880]: 30 ns.
    expect(launchLatencyOfNs(130, 100, 900, true)).toBe(30);
  });

  it('is never negative', () => {
    expect(launchLatencyOfNs(90, 100, 900, true)).toBe(0);
  });
});

/** One op on its own stream, issued by `name` over [apiStartNs, apiEndNs]. */
function oneOp(
  kind: number,
  name: string,
  startNs: number,
  apiStartNs: number,
  apiEndNs: number,
  extra: { memKinds?: number; flags?: number } = {},
) {
  const b = new TestTraceBuilder();
  const host = b.host();
  const s = b.stream(1);
  const op = b.gpu({
    track: s,
    kind,
    startNs,
    endNs: startNs + 50 * us,
    bytes: kind === OpKind.Kernel || kind === OpKind.GraphLaunch ? 0 : 1 << 20,
    ...extra,
    api: { hostTrack: host, name, startNs: apiStartNs, endNs: apiEndNs },
  });
  const latency = analyzeTrace(b.trace).metrics.launchLatency.all;
  expect(latency.count).toBe(1);
  return { latencyNs: latency.maxNs, perOpNs: launchLatencies(b.trace)[op]! };
}

describe('launch latency of blocking and non-blocking calls', () => {
  // Each call runs [0, 30 µs] and its op starts at 5 µs, before the call returns.
  const cases: [string, number, string, { memKinds?: number; flags?: number }][] = [
    ['cudaLaunchKernel', OpKind.Kernel, 'cudaLaunchKernel', {}],
    ['cuLaunchKernel', OpKind.Kernel, 'cuLaunchKernel', {}],
    ['cudaLaunchKernelExC', OpKind.Kernel, 'cudaLaunchKernelExC_v11060', {}],
    ['cudaGraphLaunch', OpKind.GraphLaunch, 'cudaGraphLaunch', {}],
    ['cudaMemsetAsync', OpKind.Memset, 'cudaMemsetAsync', {}],
    ['pinned cudaMemcpyAsync', OpKind.CopyHtoD, 'cudaMemcpyAsync', { memKinds: pinnedToDevice }],
  ];
  for (const [label, kind, name, extra] of cases) {
    it(`gives 0, not the call's own time, to a ${label} that returned after its op began`, () => {
      const r = oneOp(kind, name, 5 * us, 0, 30 * us, extra);
      expect(r.latencyNs).toBe(0);
      expect(r.perOpNs).toBe(0);
    });
  }

  it('counts a non-blocking launch from the call end when the op starts later', () => {
    // Call [0, 30 µs], kernel at 42 µs: 12 µs.
    expect(oneOp(OpKind.Kernel, 'cudaLaunchKernel', 42 * us, 0, 30 * us).latencyNs).toBe(12 * us);
  });

  const blocking: [string, number, string, { memKinds?: number; flags?: number }][] = [
    ['cudaMemcpy', OpKind.CopyHtoD, 'cudaMemcpy', { memKinds: pinnedToDevice }],
    [
      'pageable cudaMemcpyAsync',
      OpKind.CopyHtoD,
      'cudaMemcpyAsync',
      { memKinds: pageableToDevice },
    ],
    ['cudaMemset', OpKind.Memset, 'cudaMemset', {}],
    ['a copy flagged Sync', OpKind.CopyDtoH, 'cuMemcpyDtoH_v2', { flags: OpFlag.Sync }],
  ];
  for (const [label, kind, name, extra] of blocking) {
    it(`counts a blocking ${label} from the call's start`, () => {
      const r = oneOp(kind, name, 5 * us, 0, 30 * us, extra);
      expect(r.latencyNs).toBe(5 * us);
      expect(r.perOpNs).toBe(5 * us);
    });
  }
});

describe('launch links that cannot be real', () => {
  const ms = 1_000_000;
  /** Kernels back to back on one stream from 1 s on, each launched `leadNs` before it starts. */
  function skewed(leadNs: number, kernels = 4) {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(7);
    for (let k = 0; k < kernels; k++) {
      const startNs = 1000 * ms + k * 10 * us;
      const callNs = startNs - leadNs;
      b.kernel(s, startNs, startNs + 10 * us, 'nccl_like', {
        hostTrack: host,
        name: 'cudaLaunchKernel',
        startNs: callNs - 5 * us,
        endNs: callNs,
      });
    }
    b.range(host, 'ProfilerStep#1', 0, 2 * ms);
    b.range(host, 'ProfilerStep#2', 2 * ms, 4 * ms);
    b.range(host, 'ProfilerStep#3', 4 * ms, 1001 * ms);
    return b;
  }

  it('leaves launch latency out and says why when most links outlast the GPU span', () => {
    // 4 kernels over [1000 ms, 1000.04 ms]: GPU span 40 µs; each launched 900 ms before it.
    const a = analyzeTrace(skewed(900 * ms).trace);
    const ll = a.metrics.launchLatency;
    expect(ll.all.count).toBe(0);
    expect(ll.kernels.count).toBe(0);
    expect(ll.linksDisagree).toEqual({
      linkedOps: 4,
      impossibleOps: 4,
      maxNs: 900 * ms,
      p50Ns: 900 * ms,
      gpuSpanNs: 40 * us,
    });
    const f = a.findings.find((x) => x.ruleId === 'launch-links-disagree')!;
    expect(f.severity).toBe('warning');
    expect(f.estimatedSavingNs).toBe(0);
    expect(f.message).toContain(
      'launch→kernel links in this trace span up to 900 ms (median 900 ms, 4 of 4 linked ops) while the GPU worked 40 µs: the host and GPU clocks or correlation ids disagree; launch latency is left out.',
    );
    expect(f.opIndices.length).toBe(4);
  });

  it('names the step that spans longer than the GPU because of it', () => {
    const a = analyzeTrace(skewed(900 * ms).trace);
    // Step 3 is [4 ms, 1001 ms]: 997 ms of host time against 40 µs of GPU work.
    expect(a.steps.skewedSteps).toEqual(['ProfilerStep#3']);
    const f = a.findings.find((x) => x.ruleId === 'launch-links-disagree')!;
    expect(f.message).toContain('ProfilerStep#3 spans longer than the GPU');
  });

  it('keeps real launch latency, even when one call leads the GPU span', () => {
    // 20 µs links against a 40 µs span: queued work, not a clock mismatch.
    const a = analyzeTrace(skewed(20 * us).trace);
    expect(a.metrics.launchLatency.linksDisagree).toBeNull();
    expect(a.metrics.launchLatency.all).toMatchObject({ count: 4, p50Ns: 20 * us });
    expect(a.steps.skewedSteps).toEqual([]);
    expect(a.findings.map((x) => x.ruleId)).not.toContain('launch-links-disagree');
    // Two kernels, each 900 ms late: too few to call the clocks wrong (module loading can do it).
    expect(analyzeTrace(skewed(900 * ms, 2).trace).metrics.launchLatency.linksDisagree).toBeNull();
  });
});
