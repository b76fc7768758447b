/**
 * How long timed blocks are held on a crowded SM of the traced GPU. Measured block by block on
 * an H200 with CUPTI's kernel activity on, as every executor run is traced
 * (fixtures/runs/block-probe-h200.txt): a block that starts beside 40 or more warps of other
 * blocks does not end when its work does but at the next of the GPU-wide moments at which the
 * block scheduler retires blocks, so the blocks that start together end spread out: some on
 * time, the rest up to the longest hold. The profile's ramp ((warps − crowdedStartWarps) ×
 * crowdedStartNsPerWarp) is that longest hold, which the occupancy benchmark reads as the end of
 * a full wave; these levels spread the blocks of one start under it.
 */

/**
 * The holds of a crowded rank of blocks, each level as a share of the rank's longest hold, an
 * eighth of the blocks at each. The deciles of the holds beside 56 warps (7 other blocks of 8
 * warps), over the longest, were 0, .34, .63, .79, .85, .88, .93, .97, .99: about an eighth of
 * the blocks end on time, the rest spread up to the longest hold.
 */
export const crowdedHoldLevels: readonly number[] = [
  0, 0.345, 0.647, 0.802, 0.862, 0.897, 0.948, 1,
];

/**
 * Fewest blocks a hold level gets. A rank of fewer blocks is held at fewer, coarser levels (the
 * means of 2, 4 or all 8): the room its blocks leave is refilled by rank parts that would
 * otherwise split again and again, down to a wave (and an event) per block.
 */
export const minBlocksPerHoldLevel = 4;

/** By group count (8, 4, 2 or 1): the levels a rank is held at, each group's mean. */
const levelsByGroups: (readonly number[])[] = [];
for (const groups of [8, 4, 2, 1]) {
  const per = crowdedHoldLevels.length / groups;
  levelsByGroups[groups] = Array.from({ length: groups }, (_, g) => {
    const group = crowdedHoldLevels.slice(g * per, (g + 1) * per);
    return group.reduce((sum, level) => sum + level, 0) / per;
  });
}

/** The hold levels of a rank of `blocks` (shares of its longest hold), an equal part of it at each. */
export function holdLevelsOf(blocks: number): readonly number[] {
  let groups = crowdedHoldLevels.length;
  while (groups > 1 && blocks < groups * minBlocksPerHoldLevel) {
    groups >>= 1;
  }
  return levelsByGroups[groups]!;
}

/** Blocks of a rank of `blocks` at its level `k` of `levels`: every block counted once. */
export function blocksAtLevel(blocks: number, k: number, levels: number): number {
  return Math.round(((k + 1) * blocks) / levels) - Math.round((k * blocks) / levels);
}

/** The waves one crowded dispatch makes: blocks by hold, merged where the hold is the same. */
export class HoldWaves {
  holdNs = new Float64Array(16);
  blocks = new Int32Array(16);
  private count = 0;

  clear(): void {
    this.count = 0;
  }

  add(holdNs: number, blocks: number): void {
    if (blocks <= 0) {
      return;
    }
    // Insertion in hold order: at most 8 entries per crowded rank (a wave of one-warp blocks,
    // 32 ranks, makes up to about 200), the on-time ones of every rank merged.
    let i = this.count;
    while (i > 0 && this.holdNs[i - 1]! > holdNs) {
      i--;
    }
    if (i > 0 && this.holdNs[i - 1] === holdNs) {
      this.blocks[i - 1]! += blocks;
      return;
    }
    if (this.count === this.holdNs.length) {
      const holds = new Float64Array(this.count * 2);
      holds.set(this.holdNs);
      this.holdNs = holds;
      const blockCounts = new Int32Array(this.count * 2);
      blockCounts.set(this.blocks);
      this.blocks = blockCounts;
    }
    this.holdNs.copyWithin(i + 1, i, this.count);
    this.blocks.copyWithin(i + 1, i, this.count);
    this.holdNs[i] = holdNs;
    this.blocks[i] = blocks;
    this.count++;
  }

  /** Index of the longest hold (the entries are in hold order); -1 when empty. */
  lastIndex(): number {
    return this.count - 1;
  }
}
