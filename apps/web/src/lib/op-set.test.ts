import { describe, expect, it } from 'vitest';
import { clampWindow, inTimeOrder, toggleInSet, windowOfOps } from './op-set.ts';

// Ops 0..4 start at 50, 10, 30, 10, 90 ns and end 20 ns later.
const startNs = new Float64Array([50, 10, 30, 10, 90]);
const endNs = startNs.map((s) => s + 20);

describe('inTimeOrder', () => {
  it('orders by start, ties by index, without repeats or out-of-range ops', () => {
    expect(inTimeOrder([4, 0, 3, 1, 0, 9, -1], startNs)).toEqual([1, 3, 0, 4]);
  });
});

describe('toggleInSet', () => {
  it('starts a pair from the op selected before', () => {
    expect(toggleInSet([], 4, 2, startNs)).toEqual([2, 4]);
  });

  it('adds an absent op and removes a present one', () => {
    expect(toggleInSet([2, 4], null, 1, startNs)).toEqual([1, 2, 4]);
    expect(toggleInSet([1, 2, 4], null, 2, startNs)).toEqual([1, 4]);
  });

  it('starts from nothing when nothing was selected', () => {
    expect(toggleInSet([], null, 0, startNs)).toEqual([0]);
  });
});

describe('clampWindow', () => {
  it('never shows negative time: a window left of 0 moves right keeping its width', () => {
    expect(clampWindow({ startNs: -40, endNs: 60 }, 0, 1000)).toEqual({ startNs: 0, endNs: 100 });
  });

  it('never runs past the end: a window right of the end moves left', () => {
    expect(clampWindow({ startNs: 950, endNs: 1050 }, 0, 1000)).toEqual({
      startNs: 900,
      endNs: 1000,
    });
  });

  it('keeps a window inside the bounds and shrinks one wider than them to the bounds', () => {
    expect(clampWindow({ startNs: 10, endNs: 20 }, 0, 1000)).toEqual({ startNs: 10, endNs: 20 });
    expect(clampWindow({ startNs: -500, endNs: 2000 }, 0, 1000)).toEqual({
      startNs: 0,
      endNs: 1000,
    });
  });
});

describe('windowOfOps', () => {
  it('shows every op with 5% room, cut to the trace', () => {
    // Ops 1 and 4: 10 .. 110 ns, 100 ns wide, 5 ns each side: 5 .. 115, the end cut at 112.
    expect(windowOfOps([1, 4], startNs, endNs, 0, 112)).toEqual({ startNs: 5, endNs: 112 });
  });

  it('never starts before the trace', () => {
    // Op 3 starts at 10; 20 ns wide so 1 ns room: 9 .. 31. A trace that starts at 10 cuts it.
    expect(windowOfOps([3], startNs, endNs, 10, 1000)).toEqual({ startNs: 10, endNs: 31 });
  });

  it('has no window for an empty set', () => {
    expect(windowOfOps([], startNs, endNs, 0, 1000)).toBeUndefined();
  });
});
