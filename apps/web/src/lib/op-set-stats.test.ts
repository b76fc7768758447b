import { describe, expect, it } from 'vitest';
import { opSetStats } from './op-set-stats.ts';
import { sampleTrace } from './sample-trace.test-helper.ts';

describe('opSetStats', () => {
  it('sums count and durations of the set, by kind and by stream', () => {
    // copyA [0,100) 100 ns, gemm [100,300) 200 ns on stream 1; GEMM_big [400,1000) 600 ns on 2.
    const stats = opSetStats(sampleTrace(), [0, 1, 4]);
    expect(stats).toMatchObject({ count: 3, totalNs: 900, meanNs: 300, minNs: 100, maxNs: 600 });
    expect(stats.byKind.map((k) => [k.kind, k.count, k.totalNs])).toEqual([
      ['kernel', 2, 800],
      ['copy-htod', 1, 100],
    ]);
    expect(stats.byStream.map((s) => [s.label, s.count, s.totalNs, s.minNs, s.maxNs])).toEqual([
      ['Stream 1', 2, 300, 100, 200],
      ['Stream 2', 1, 600, 600, 600],
    ]);
  });

  it('gives bytes and bandwidth of the copies: 4096 B in 100 ns is 40.96 GB/s', () => {
    const stats = opSetStats(sampleTrace(), [0, 1]);
    expect(stats.copies).toEqual({
      count: 1,
      bytes: 4096,
      durNs: 100,
      bandwidthGBps: 40.96,
      sizeUnknown: 0,
    });
  });

  it('skips ops out of range and has zero durations for an empty set', () => {
    const stats = opSetStats(sampleTrace(), [99]);
    expect(stats).toMatchObject({ count: 0, totalNs: 0, meanNs: 0, minNs: 0, maxNs: 0 });
    expect(stats.copies.bandwidthGBps).toBe(0);
  });
});
