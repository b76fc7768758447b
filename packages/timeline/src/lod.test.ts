import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kindColors } from './colors.ts';
import { IntervalBuilder } from './interval-buffers.ts';
import { bucketIntervals, bucketNsFor, densityAlpha } from './lod.ts';

function build(
  intervals: readonly (readonly [number, number, number])[],
  baseNs: number,
  bucketNs: number,
): { out: IntervalBuilder; starts: Float64Array; ends: Float64Array } {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const starts = Float64Array.from(sorted.map((i) => i[0]));
  const ends = Float64Array.from(sorted.map((i) => i[1]));
  const kinds = Uint8Array.from(sorted.map((i) => i[2]));
  const order = Uint32Array.from(sorted.map((_, k) => k));
  const out = new IntervalBuilder();
  out.reset(1);
  out.beginRow(0);
  bucketIntervals(
    out,
    0,
    0,
    order,
    { startNs: starts, endNs: ends, classes: kinds, classColors: kindColors },
    baseNs,
    bucketNs,
  );
  out.endRow(0);
  return { out, starts, ends };
}

describe('bucketNsFor', () => {
  it('rounds ns per px up to a power of two', () => {
    expect(bucketNsFor(1000)).toBe(1024);
    expect(bucketNsFor(1024)).toBe(1024);
    expect(bucketNsFor(1025)).toBe(2048);
    expect(bucketNsFor(0.3)).toBe(1);
    expect(bucketNsFor(3e6)).toBe(2 ** 22);
  });
});

describe('bucketIntervals', () => {
  it('keeps ops at least two buckets long as exact rectangles with their op index', () => {
    // 64 ns buckets: 100 and 200 ns ops are exact.
    const { out } = build(
      [
        [0, 100, 0],
        [200, 400, 1],
      ],
      0,
      64,
    );
    expect(out.count).toBe(2);
    expect(Array.from(out.items.subarray(0, 2))).toEqual([0, 1]);
    expect(out.colors[1]).toBe(kindColors[1]);
  });

  it('merges sub-bucket ops into one rectangle coloured by the busiest kind', () => {
    // Bucket 1024 ns: three short kernels and one shorter copy in [0, 1024).
    const { out } = build(
      [
        [0, 100, 0],
        [200, 300, 0],
        [400, 500, 0],
        [600, 620, 1],
      ],
      0,
      1024,
    );
    expect(out.count).toBe(1);
    expect(out.items[0]).toBe(-1);
    expect(out.counts[0]).toBe(4);
    // Kernel colour; busy 320 of 1024 ns → 0.31 → the lowest alpha step.
    expect(out.colors[0]! >>> 8).toBe(kindColors[0]! >>> 8);
    expect((out.colors[0]! & 0xff) / 255).toBeCloseTo(densityAlpha(320 / 1024), 2);
  });

  it('joins adjacent buckets of the same colour and density', () => {
    // A 30 ns kernel every 32 ns: each 128 ns bucket is 94% busy, so all 10 buckets join.
    const ops: [number, number, number][] = [];
    for (let k = 0; k < 40; k++) {
      ops.push([k * 32, k * 32 + 30, 0]);
    }
    const { out } = build(ops, 0, 128);
    expect(out.count).toBe(1);
    expect(out.counts[0]).toBe(40);
    expect(out.starts[0]).toBe(0);
    expect(out.ends[0]).toBe(1280);
  });

  it('loses no interval: every op lies inside a rectangle of its row and counts add up', () => {
    const interval = fc
      .tuple(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 50_000 }),
        fc.integer({ min: 0, max: 17 }),
      )
      .map(([s, d, k]) => [s, s + d, k] as const);
    fc.assert(
      fc.property(
        fc.array(interval, { maxLength: 300 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: -1000, max: 1000 }),
        (intervals, log2Bucket, baseNs) => {
          const bucketNs = 2 ** log2Bucket;
          const { out, starts, ends } = build(intervals, baseNs, bucketNs);
          let total = 0;
          for (let k = 0; k < out.count; k++) {
            total += out.counts[k]!;
          }
          expect(total).toBe(intervals.length);
          for (let i = 0; i < starts.length; i++) {
            const s = starts[i]! - baseNs;
            const e = ends[i]! - baseNs;
            // Float32 offsets: allow their rounding (relative 2^-23 of the offset).
            const tol = Math.max(Math.abs(s), Math.abs(e)) * 2 ** -22 + 1e-6;
            let covered = false;
            for (let k = 0; k < out.count && !covered; k++) {
              covered = out.starts[k]! <= s + tol && out.ends[k]! >= e - tol;
            }
            expect(covered).toBe(true);
          }
          // Rectangles of a row come out in start order (culling binary-searches them).
          for (let k = 1; k < out.count; k++) {
            expect(out.starts[k]!).toBeGreaterThanOrEqual(out.starts[k - 1]!);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('mixed buckets', () => {
  it('carry a second colour when another kind kept the bucket at least a third as busy', () => {
    // 1024 ns bucket: 300 ns of kernel and 200 ns of H→D copy; then a pure-kernel bucket.
    const { out } = build(
      [
        [0, 300, 0],
        [400, 600, 1],
        [1024, 1324, 0],
      ],
      0,
      1024,
    );
    expect(out.count).toBe(2);
    expect(out.colors[0]! >>> 8).toBe(kindColors[0]! >>> 8);
    expect(out.mixes[0]! >>> 8).toBe(kindColors[1]! >>> 8);
    expect(out.mixes[1]).toBe(0);
  });
});
