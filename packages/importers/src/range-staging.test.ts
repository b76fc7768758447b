import { describe, expect, it } from 'vitest';
import { rangeOrder } from './range-staging.ts';

/** The order the ranges were placed in before rangeOrder: one comparison sort of everything. */
function referenceOrder(lane: Uint32Array, start: Float64Array, end: Float64Array): number[] {
  return Array.from({ length: lane.length }, (_, i) => i).sort(
    (a, b) => lane[a]! - lane[b]! || start[a]! - start[b]! || end[b]! - end[a]! || a - b,
  );
}

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('rangeOrder', () => {
  it('orders by lane, start, the longer first, then as staged, like one sort of everything', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const n = Math.floor(next() * 300);
      const lanes = 1 + Math.floor(next() * 6);
      const lane = new Uint32Array(n);
      const start = new Float64Array(n);
      const end = new Float64Array(n);
      // Some seeds stage each lane in start order (the common case: no sort), others shuffle;
      // few distinct times, so equal starts and equal ends (ties) are frequent.
      const inOrder = seed % 2 === 0;
      for (let i = 0; i < n; i++) {
        lane[i] = Math.floor(next() * lanes) * (seed % 3 === 0 ? 5 : 1); // lanes with gaps too
        start[i] = inOrder ? i : Math.floor(next() * 20);
        end[i] = start[i]! + Math.floor(next() * 4);
      }
      expect([...rangeOrder(lane, start, end, n)], `seed ${seed}`).toEqual(
        referenceOrder(lane, start, end),
      );
    }
  });

  it('orders only the first n ranges of longer columns', () => {
    const lane = Uint32Array.of(1, 0, 1, 0, 9);
    const start = Float64Array.of(5, 3, 2, 3, 0);
    const end = Float64Array.of(6, 4, 9, 8, 1);
    // Lane 0: ops 3 (3..8) before 1 (3..4), the longer first; lane 1: op 2 (start 2) before 0.
    expect([...rangeOrder(lane, start, end, 4)]).toEqual([3, 1, 2, 0]);
  });
});
