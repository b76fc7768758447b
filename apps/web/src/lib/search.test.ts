import { describe, expect, it } from 'vitest';
import { sampleTrace } from './sample-trace.test-helper.ts';
import { searchOps } from './search.ts';

describe('searchOps', () => {
  it('finds names case-insensitively across all tracks, ordered by start', () => {
    const trace = sampleTrace();
    // gemm at 100 (op 1), gemm at 300 (op 2), GEMM_big at 400 (op 4)
    expect([...searchOps(trace, 'gemm')]).toEqual([1, 2, 4]);
  });

  it('returns nothing for a blank query or a name that is absent', () => {
    const trace = sampleTrace();
    expect(searchOps(trace, '  ').length).toBe(0);
    expect(searchOps(trace, 'softmax').length).toBe(0);
  });
});
