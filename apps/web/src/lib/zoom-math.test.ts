import { describe, expect, it } from 'vitest';
import { gestureWindow, keyAction, windowAround } from './zoom-math.ts';

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
