import { describe, expect, it } from 'vitest';
import {
  HoldWaves,
  blocksAtLevel,
  crowdedHoldLevels,
  holdLevelsOf,
  minBlocksPerHoldLevel,
} from './crowding.ts';

/** A rank's levels and the blocks at each. */
function split(blocks: number): { levels: readonly number[]; counts: number[] } {
  const levels = holdLevelsOf(blocks);
  return { levels, counts: levels.map((_, k) => blocksAtLevel(blocks, k, levels.length)) };
}

describe('the hold levels of crowded blocks', () => {
  it('share a full rank over every level, an eighth at each, the first on time', () => {
    const { levels, counts } = split(132);
    expect(levels).toHaveLength(8);
    expect(levels).toEqual(crowdedHoldLevels);
    expect(levels[0]).toBe(0);
    expect(levels[7]).toBe(1);
    expect(counts).toEqual([17, 16, 17, 16, 17, 16, 17, 16]);
  });

  it('hold a smaller rank at fewer, coarser levels (the means), every block counted once', () => {
    const { levels, counts } = split(4 * minBlocksPerHoldLevel - 1);
    expect(levels).toHaveLength(2);
    expect(counts).toEqual([8, 7]);
    expect(levels[0]).toBeCloseTo((0 + 0.345 + 0.647 + 0.802) / 4, 12);
    expect(levels[1]).toBeCloseTo((0.862 + 0.897 + 0.948 + 1) / 4, 12);
    const one = split(1);
    expect(one.levels).toHaveLength(1);
    expect(one.counts[0]).toBe(1);
    expect(one.levels[0]).toBeCloseTo(crowdedHoldLevels.reduce((a, b) => a + b, 0) / 8, 12);
  });

  it('are merged into waves by hold, in hold order, empty ones left out', () => {
    const holds = new HoldWaves();
    holds.add(30, 2);
    holds.add(0, 5);
    holds.add(30, 1);
    holds.add(10, 0);
    holds.add(20, 4);
    expect(holds.lastIndex()).toBe(2);
    expect([...holds.holdNs.subarray(0, 3)]).toEqual([0, 20, 30]);
    expect([...holds.blocks.subarray(0, 3)]).toEqual([5, 4, 3]);
    for (let k = 0; k < 40; k++) {
      holds.add(100 - k, 1); // grows past its first 16 entries, each in front
    }
    expect(holds.lastIndex()).toBe(42);
    expect(holds.holdNs[0]).toBe(0);
    expect(holds.holdNs[3]).toBe(61);
    expect(holds.holdNs[42]).toBe(100);
    holds.clear();
    expect(holds.lastIndex()).toBe(-1);
    holds.add(7, 1);
    expect([holds.holdNs[0], holds.blocks[0], holds.lastIndex()]).toEqual([7, 1, 0]);
  });
});
