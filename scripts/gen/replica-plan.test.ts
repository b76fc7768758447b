import { describe, expect, it } from 'vitest';
import { IdleStart, planReplicas } from './replica-plan.ts';

describe('planReplicas', () => {
  // An idle start (one call at 100 ns), a long gap, then work from 30,000 to 40,000 ns.
  const intervals: [number, number][] = [
    [100, 200],
    [30_000, 32_000],
    [39_000, 40_000],
  ];

  it('repeats all after the longest idle stretch when there are no steps', () => {
    expect(planReplicas(intervals)).toEqual({ busyStartNs: 30_000, strideNs: 11_000 });
  });

  it('writes slow first steps once and repeats the steady steps that end the recording', () => {
    // A 5,000 ns first step, then four of 1,000 to 1,200 ns (median 1,100: twice is 2,200).
    const steps: [number, number][] = [
      [30_000, 35_000],
      [35_100, 36_200],
      [36_300, 37_300],
      [37_400, 38_500],
      [38_600, 39_800],
      // Held by the step before: not a step of its own.
      [38_700, 38_800],
    ];
    const plan = planReplicas(intervals, steps);
    expect(plan).toEqual({ busyStartNs: 35_100, strideNs: 40_000 - 35_100 + 1000 });
    const once = new IdleStart(plan);
    once.note(32_000, 7);
    // A call of the warm-up and the GPU op it launched (same correlation id) stay together.
    expect(once.has(32_000, 7)).toBe(true);
    expect(once.has(36_000, 7)).toBe(true);
    expect(once.has(36_000, 8)).toBe(false);
  });

  it('keeps the whole busy part when the last step is slow or there are fewer than three', () => {
    const slowLast: [number, number][] = [
      [30_000, 31_000],
      [31_100, 32_100],
      [32_200, 39_000],
    ];
    expect(planReplicas(intervals, slowLast).busyStartNs).toBe(30_000);
    expect(planReplicas(intervals, slowLast.slice(0, 2)).busyStartNs).toBe(30_000);
    // Steps in the idle start are not the busy part's.
    const early: [number, number][] = [
      [100, 150],
      [160, 170],
      [175, 180],
    ];
    expect(planReplicas(intervals, early).busyStartNs).toBe(30_000);
  });
});
