import { describe, expect, it } from 'vitest';
import { axisTicks, formatTick, niceStepNs, unitForStep } from './axis-ticks.ts';

describe('axisTicks', () => {
  it('picks a 1-2-5 step at least the minimum spacing apart', () => {
    // 1 ms over 1000 px at ≥ 90 px: 90 µs minimum → 100 µs steps.
    expect(niceStepNs(1e6, 1000, 90)).toBe(1e5);
    // 10 s over 1000 px: 0.9 s minimum → 1 s.
    expect(niceStepNs(1e10, 1000, 90)).toBe(1e9);
    // 300 ns over 1000 px: 27 ns minimum → 50 ns.
    expect(niceStepNs(300, 1000, 90)).toBe(50);
    expect(niceStepNs(5, 1000, 90)).toBe(1);
  });

  it('labels ticks in the unit of the step', () => {
    expect(unitForStep(50)).toBe('ns');
    expect(unitForStep(2e3)).toBe('µs');
    expect(unitForStep(5e6)).toBe('ms');
    expect(unitForStep(1e9)).toBe('s');
    expect(formatTick(250_000, 'µs', 50_000)).toBe('250 µs');
    expect(formatTick(1_500_000, 'ms', 500_000)).toBe('1.5 ms');
    expect(formatTick(2e9, 's', 1e9)).toBe('2 s');
  });

  it('places every tick inside the window on a multiple of the step', () => {
    const axis = axisTicks(1234, 1_001_234, 1000);
    expect(axis.stepNs).toBe(1e5);
    expect(axis.ticks.length).toBe(10);
    for (const tick of axis.ticks) {
      expect(tick.timeNs % axis.stepNs).toBe(0);
      expect(tick.timeNs).toBeGreaterThanOrEqual(1234);
      expect(tick.timeNs).toBeLessThanOrEqual(1_001_234);
    }
    expect(axis.ticks[0]!.label).toBe('100 µs');
    expect(axis.baseLabel).toBe('');
  });

  it('labels relative to a shown base at deep zoom far from the origin', () => {
    // 1 µs window 5 s into the trace: 10 ns steps would need 9-digit labels.
    const axis = axisTicks(5e9 + 123, 5e9 + 1123, 1000);
    expect(axis.stepNs).toBe(100);
    expect(axis.labelBaseNs).toBe(5e9);
    expect(axis.baseLabel).toBe('5.0000 s');
    expect(axis.ticks[0]!.label).toBe('+200 ns');
    expect(axis.ticks.every((t) => t.label.length <= 10)).toBe(true);
  });
});
