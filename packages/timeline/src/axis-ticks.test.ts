import { describe, expect, it } from 'vitest';
import type { AxisTick } from './axis-ticks.ts';
import {
  axisLabelWidthPx,
  axisTicks,
  formatTick,
  niceStepNs,
  placeAxisLabels,
  unitForStep,
} from './axis-ticks.ts';

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

describe('placeAxisLabels', () => {
  const charPx = 10 * 0.58;
  const at = (xs: Record<number, number>) => (tick: AxisTick) => xs[tick.timeNs]!;

  it('shifts a label that would pass the right edge left so it ends there', () => {
    const ticks: AxisTick[] = [
      { timeNs: 0, label: '0 µs', major: true },
      { timeNs: 1000, label: '1000 µs', major: false },
      { timeNs: 2000, label: '2000 µs', major: false },
    ];
    // The last tick sits 4 px from the right edge: "2000 µs" (7 glyphs) needs about 47 px.
    const xs = placeAxisLabels(ticks, at({ 0: 200, 1000: 598, 2000: 996 }), 200, 1000, charPx);
    expect(xs[0]).toBe(203);
    expect(xs[1]).toBe(601);
    const widthPx = axisLabelWidthPx('2000 µs', charPx);
    expect(widthPx).toBeGreaterThan(7 * charPx);
    expect(xs[2]).toBe(1000 - widthPx);
  });

  it('drops a shifted label that would run into the one before it', () => {
    const ticks: AxisTick[] = [
      { timeNs: 0, label: '100 µs', major: false },
      { timeNs: 1, label: '200 µs', major: false },
    ];
    const xs = placeAxisLabels(ticks, at({ 0: 930, 1: 995 }), 200, 1000, charPx);
    expect(xs[0]).toBe(933);
    expect(Number.isNaN(xs[1]!)).toBe(true);
  });

  it('keeps every label inside the axis and apart at many widths and windows', () => {
    for (const widthPx of [260, 333, 517, 800, 1000, 1280, 1441, 2360]) {
      for (const [startNs, endNs] of [
        [0, 2_000_000],
        [0, 2_260_000],
        [123_456, 9_876_543],
        [5e9 + 17, 5e9 + 999_017],
        [0, 1e10],
      ] as const) {
        const gutterPx = 200;
        const axis = axisTicks(startNs, endNs, widthPx - gutterPx);
        const scale = (widthPx - gutterPx) / (endNs - startNs);
        const xOf = (tick: AxisTick) => gutterPx + (tick.timeNs - startNs) * scale;
        const xs = placeAxisLabels(axis.ticks, xOf, gutterPx, widthPx, charPx);
        let prevEnd = -Infinity;
        axis.ticks.forEach((tick, i) => {
          const x = xs[i]!;
          if (Number.isNaN(x)) {
            return;
          }
          const end = x + axisLabelWidthPx(tick.label, charPx);
          expect(end).toBeLessThanOrEqual(widthPx);
          expect(x).toBeGreaterThanOrEqual(gutterPx);
          expect(x).toBeGreaterThan(prevEnd);
          // A label stays by its tick: it starts right of it, or ends right of it when shifted.
          expect(x <= xOf(tick) + 3 && end >= xOf(tick)).toBe(true);
          prevEnd = end;
        });
        // Only the last label may go (when it has no room left of the edge).
        expect(xs.slice(0, -1).every((x) => !Number.isNaN(x))).toBe(true);
      }
    }
  });
});
