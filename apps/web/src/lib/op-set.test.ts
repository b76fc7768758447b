import { describe, expect, it } from 'vitest';
import { inTimeOrder, showTargetOf, toggleInSet } from './op-set.ts';

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

describe('showTargetOf', () => {
  it('spans the ops from first start to last end, the first one current', () => {
    // Ops 1, 0 and 4 in time order: 10 .. 110 ns; op 1 is 10 .. 30.
    expect(showTargetOf([1, 0, 4], startNs, endNs)).toEqual({
      fromNs: 10,
      toNs: 110,
      currentStartNs: 10,
      currentEndNs: 30,
    });
  });
});
