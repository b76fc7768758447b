import { describe, expect, it } from 'vitest';
import { areaStats } from './area-stats.ts';
import { sampleTrace } from './sample-trace.test-helper.ts';

describe('areaStats', () => {
  it('groups overlapping ops by kind and name with count, sum, avg, min and max', () => {
    const trace = sampleTrace();
    // [90, 320] on both streams touches copyA (100), gemm (200), gemm (50); relu ends at 60.
    const rows = areaStats(trace, 90, 320, [0, 1]);
    expect(rows).toEqual([
      { kind: 'kernel', name: 'gemm', count: 2, sumNs: 250, avgNs: 125, minNs: 50, maxNs: 200 },
      {
        kind: 'copy-htod',
        name: 'copyA',
        count: 1,
        sumNs: 100,
        avgNs: 100,
        minNs: 100,
        maxNs: 100,
      },
    ]);
  });

  it('only counts the tracks in the area', () => {
    const trace = sampleTrace();
    const rows = areaStats(trace, 0, 2000, [1]);
    expect(rows.map((r) => r.name)).toEqual(['GEMM_big', 'relu']);
  });
});
