import { describe, expect, it } from 'vitest';
import {
  focusOpPx,
  gestureWindow,
  keyAction,
  minShownOpPx,
  showWindow,
  windowAround,
} from './zoom-math.ts';

describe('zoom math', () => {
  it('pads a window by a tenth of its span on each side', () => {
    expect(windowAround(1000, 2000)).toEqual({ startNs: 900, endNs: 2100 });
  });

  it('binds WASD by physical key code, whatever the layout prints', () => {
    expect(keyAction('KeyW')).toEqual({ kind: 'zoom', factor: 1.25 });
    expect(keyAction('KeyD')).toEqual({ kind: 'pan', fraction: 0.15 });
    expect(keyAction('KeyZ')).toBeNull();
  });

  it('maps a zoom gesture back through the window it started from', () => {
    // Plot spans x 100..1100 showing [0, 1000] ns: 1 ns per px. A 2x zoom around x = 600
    // (t = 500 ns) maps screen x back to 600 + (x - 600) / 2: the edges show 250 and 750 ns.
    const view = gestureWindow({ startNs: 0, endNs: 1000 }, 100, 1100, (x) => 600 + (x - 600) / 2);
    expect(view).toEqual({ startNs: 250, endNs: 750 });
  });

  it('maps a drag to a pan by the dragged distance', () => {
    // Dragging right by 100 px shows what was 100 px further left: 100 ns earlier.
    const view = gestureWindow({ startNs: 0, endNs: 1000 }, 100, 1100, (x) => x - 100);
    expect(view).toEqual({ startNs: -100, endNs: 900 });
  });
});

describe('showWindow', () => {
  // A 28 ms trace on a 1000 px plot, at fit-all: 28.56 µs a px.
  const spanNs = 28_000_000;
  const fitAll = { startNs: -560_000, endNs: 28_560_000 };
  // A 12.5 µs copy at 3 ms: under half a px at fit-all.
  const copy = {
    fromNs: 3_000_000,
    toNs: 3_012_500,
    currentStartNs: 3_000_000,
    currentEndNs: 3_012_500,
  };
  const widthPx = (view: { startNs: number; endNs: number }, durNs: number): number =>
    (durNs * 1000) / (view.endNs - view.startNs);

  it('zooms to one op it could not show at the current zoom, with 5% of room each side', () => {
    // 12.5 µs with 625 ns each side: about 909 px of the 1000.
    const view = showWindow(copy, 1000, spanNs, fitAll);
    expect(view).toEqual({ startNs: 2_999_375, endNs: 3_013_125 });
    expect(widthPx(view, 12_500)).toBeGreaterThanOrEqual(minShownOpPx);
    // Without a view to keep (a finding's show) the same op gets the same window.
    expect(showWindow(copy, 1000, spanNs)).toEqual(view);
  });

  it('keeps a zoom that shows the op readable, recentred on it', () => {
    const near = { startNs: 2_900_000, endNs: 3_100_000 }; // 200 µs: the copy is 62.5 px
    expect(showWindow(copy, 1000, spanNs, near)).toEqual({
      startNs: 2_906_250,
      endNs: 3_106_250,
    });
  });

  it('fits every op when the current one is readable so', () => {
    // Two 2 ms kernels at 2 and 20 ms: 2 .. 22 ms with 1 ms (5%) room each side, each 91 px.
    const wide = {
      fromNs: 2_000_000,
      toNs: 22_000_000,
      currentStartNs: 2_000_000,
      currentEndNs: 4_000_000,
    };
    expect(showWindow(wide, 1000, spanNs)).toEqual({ startNs: 1_000_000, endNs: 23_000_000 });
  });

  it('else shows the current op focusOpPx wide, reaching from it toward the others', () => {
    // The first op a 12.5 µs copy at 2 ms: fitting 2 .. 22 ms would leave it 0.6 px. The window
    // is 12.5 µs × 1000 / 16 = 781.25 µs wide and starts 5% of that (39.0625 µs) before it.
    const thin = {
      fromNs: 2_000_000,
      toNs: 22_000_000,
      currentStartNs: 2_000_000,
      currentEndNs: 2_012_500,
    };
    const view = showWindow(thin, 1000, spanNs);
    expect(view).toEqual({ startNs: 1_960_937.5, endNs: 2_742_187.5 });
    expect(widthPx(view, 12_500)).toBe(focusOpPx);
    // 3 px is enough to fit them all: 16 copies of 21.5 µs over 3.7 ms on 800 px are 4.6 px.
    const copies = { ...thin, toNs: 5_700_000, currentEndNs: 2_021_500 };
    expect(showWindow(copies, 800, spanNs)).toEqual({ startNs: 1_815_000, endNs: 5_885_000 });
    // 21.5 µs × 800 px / 4.07 ms = 4.2 px.
    expect((21_500 * 800) / (5_885_000 - 1_815_000)).toBeGreaterThanOrEqual(minShownOpPx);
  });

  it('never starts before the trace or ends past it', () => {
    // An op at 0: 5% room would start at -625 ns; the window moves right, its width kept.
    const first = { fromNs: 0, toNs: 12_500, currentStartNs: 0, currentEndNs: 12_500 };
    expect(showWindow(first, 1000, spanNs)).toEqual({ startNs: 0, endNs: 13_750 });
    // Ops far apart, the first at 0: 781.25 µs from 39.0625 µs before it, moved to start at 0.
    expect(showWindow({ ...first, toNs: 20_000_000 }, 1000, spanNs)).toEqual({
      startNs: 0,
      endNs: 781_250,
    });
    const last = {
      fromNs: spanNs - 12_500,
      toNs: spanNs,
      currentStartNs: spanNs - 12_500,
      currentEndNs: spanNs,
    };
    expect(showWindow(last, 1000, spanNs, fitAll).endNs).toBe(spanNs);
  });
});
