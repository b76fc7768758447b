import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { queueDepthSeries, queueDepthSeriesByStream } from './queue-depth.ts';
import { TestTraceBuilder } from './test-trace-builder.ts';
import { defaultAnalysisOptions } from './types.ts';

/** `count` launches 1 ns apart from `firstNs` on `track`; kernels run 10 ns each from 10 ns. */
function burst(b: TestTraceBuilder, host: number, track: number, count: number, firstNs = 0) {
  for (let k = 0; k < count; k++) {
    b.kernel(track, 10 * (k + 1), 10 * (k + 1) + 10, 'k', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: firstNs + k,
      endNs: firstNs + k + 1,
    });
  }
}

describe('launch queue depth', () => {
  it('gives every stream its depth as step-function points', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    const idle = b.stream(3);
    burst(b, host, s1, 3);
    burst(b, host, s2, 2, 5);
    b.kernel(idle, 0, 5, 'no api call');
    const series = queueDepthSeriesByStream(b.trace);
    expect(series.map((s) => s.track)).toEqual([s1, s2]);
    // s1: enqueued at 0, 1, 2; started at 10, 20, 30.
    expect(Array.from(series[0]!.timesNs)).toEqual([0, 1, 2, 10, 20, 30]);
    expect(Array.from(series[0]!.depth)).toEqual([1, 2, 3, 2, 1, 0]);
    // s2: enqueued at 5, 6; started at 10, 20.
    expect(Array.from(series[1]!.timesNs)).toEqual([5, 6, 10, 20]);
    expect(Array.from(series[1]!.depth)).toEqual([1, 2, 1, 0]);
    expect(Array.from(queueDepthSeries(b.trace, s2).depth)).toEqual([1, 2, 1, 0]);
  });

  it('never goes below 0 when a GPU clock puts an op before its call', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    // The call is stamped at 100 but its kernel at 50 (host and GPU clocks disagree).
    b.kernel(s, 50, 60, 'k', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 100,
      endNs: 101,
    });
    const series = queueDepthSeries(b.trace, s);
    expect(Math.min(...series.depth)).toBeGreaterThanOrEqual(0);
    expect(Array.from(series.depth).at(-1)).toBe(0);
  });

  it('measures the time each queue was full and the time any was', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    burst(b, host, s1, 5);
    burst(b, host, s2, 3, 10);
    const m = analyzeTrace(b.trace, { fromNs: 0, toNs: 100 }, { launchQueueCapacity: 3 }).metrics;
    // s1: depth 3 from 2 ns (third launch) until 30 ns (third kernel starts; depth 2): 28 ns.
    // s2: enqueued at 10, 11, 12, started at 10, 20, 30: depth 1, 1, 2 — never full.
    expect(m.queueDepth.map((q) => [q.maxDepth, q.fullNs])).toEqual([
      [5, 28],
      [2, 0],
    ]);
    expect(m.launchQueueFullNs).toBe(28);
  });

  it('takes 1024 pending launches as a full queue by default (HTA)', () => {
    expect(defaultAnalysisOptions.launchQueueCapacity).toBe(1024);
  });
});
