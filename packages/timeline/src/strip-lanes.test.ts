import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntervalBuilder } from './interval-buffers.ts';
import type { StripGeometry } from './strip-lanes.ts';
import { rasterLanes, rasterOpLanes, shiftStrips } from './strip-lanes.ts';
import { rasterSpan, rgbaToPixel } from './strip-raster.ts';

const widthPx = 48;
const palette = [0x0072b2ff, 0xe69f00b3, 0xd55e006b, 0x009e73ff, 0x5f5f5f24] as const;

/** An op row's entries, sorted by start, some long, some mixed, some outside the window. */
const entries = fc
  .array(
    fc.record({
      // Fractions of a pixel spread evenly (fc.double favours tiny and extreme values).
      startRel: fc.integer({ min: -370, max: 2220 }).map((v) => v / 37),
      // Mostly slivers and merged buckets, as at a level of detail; now and then a long op.
      lengthRel: fc.oneof(
        { weight: 12, arbitrary: fc.integer({ min: 0, max: 111 }).map((v) => v / 37) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 1480 }).map((v) => v / 37) },
      ),
      color: fc.constantFrom(...palette),
      mix: fc.oneof(fc.constant(0), fc.constantFrom(...palette)),
    }),
    { maxLength: 60 },
  )
  .map((list) => list.sort((a, b) => a.startRel - b.startRel));

type Entry = { startRel: number; lengthRel: number; color: number; mix: number };

/** One op row of `list` (sorted by start), in a builder. */
function rowOf(list: readonly Entry[]): IntervalBuilder {
  const b = new IntervalBuilder();
  b.reset(1);
  b.beginRow(0);
  for (const e of list) {
    b.push(0, 0, Math.fround(e.startRel), Math.fround(e.startRel + e.lengthRel), e.color, -1, 1);
    b.mixes[b.count - 1] = e.mix;
  }
  b.endRow(0);
  return b;
}

const gapColor = 0x6e778124;
const gapPixel = rgbaToPixel(gapColor);

/** Strips `widthPx` wide over `pixels`, all columns painted, rel 0 at `offset`. */
function wholeStrips(
  pixels: Uint32Array,
  scale: number,
  minWidthPx: number,
  offset = -2.25,
): StripGeometry {
  return { pixels, widthPx, scale, offset, minWidthPx, fromPx: 0, toPx: widthPx };
}

/** The reference: a lane from its start (gaps or nothing), every entry in order, in full. */
function referenceLane(b: IntervalBuilder, g: StripGeometry, gaps: boolean, second: boolean) {
  const px = new Uint32Array(widthPx);
  if (gaps) {
    rasterSpan(px, 0, widthPx, 3.5, 30.25, gapPixel);
  }
  for (let k = 0; k < b.count; k++) {
    const x0 = g.offset + b.starts[k]! * g.scale;
    const x1 = Math.max(x0 + g.minWidthPx, g.offset + b.ends[k]! * g.scale);
    const color = second && b.mixes[k] !== 0 ? b.mixes[k]! : b.colors[k]!;
    rasterSpan(px, 0, widthPx, x0, x1, rgbaToPixel(color));
  }
  return Array.from(px);
}

describe('op row lanes', () => {
  it('paints the lower lane exactly as rasterizing every entry again would, over gaps or not', () => {
    fc.assert(
      fc.property(
        entries,
        fc.constantFrom(1, 2),
        fc.integer({ min: 16, max: 48 }).map((v) => v / 32),
        fc.boolean(),
        (list, minWidthPx, scale, withGaps) => {
          const b = rowOf(list);
          const pixels = new Uint32Array(3 * widthPx);
          if (withGaps) {
            rasterSpan(pixels, 0, widthPx, 3.5, 30.25, gapPixel);
          }
          const g = wholeStrips(pixels, scale, minWidthPx);
          const used = new Uint8Array(3);
          rasterOpLanes(g, b, 0, b.count, 1, withGaps ? 0 : -1, used);
          const upper = referenceLane(b, g, withGaps, false);
          const lower = referenceLane(b, g, withGaps, true);
          expect(Array.from(pixels.subarray(widthPx, 2 * widthPx))).toEqual(upper);
          if (used[2] === 1) {
            expect(Array.from(pixels.subarray(2 * widthPx))).toEqual(lower);
          } else {
            // Unused only when no mixed bucket touched a pixel: then it would equal the upper.
            expect(lower).toEqual(upper);
          }
          const inView = list.filter((_, k) => {
            const x0 = g.offset + b.starts[k]! * scale;
            return x0 < widthPx && Math.max(x0 + minWidthPx, g.offset + b.ends[k]! * scale) > 0;
          });
          expect(used[1]).toBe(inView.length > 0 ? 1 : 0);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('pans by moving the lanes and painting the uncovered columns, to the same pixels', () => {
    fc.assert(
      fc.property(
        entries,
        fc.constantFrom(1, 2),
        fc.integer({ min: 16, max: 48 }).map((v) => v / 32),
        fc.boolean(),
        fc.array(fc.integer({ min: -23, max: 23 }), { minLength: 1, maxLength: 4 }),
        (list, minWidthPx, scale, withGaps, shifts) => {
          const b = rowOf(list);
          // The gap strip: one long gap at fixed rel times.
          const gaps = rowOf(
            withGaps ? [{ startRel: 5, lengthRel: 22, color: gapColor, mix: 0 }] : [],
          );
          const paint = (g: StripGeometry, used: Uint8Array): void => {
            rasterLanes(g, gaps, 0, gaps.count, 0, used);
            rasterOpLanes(g, b, 0, b.count, 1, used[0] === 1 ? 0 : -1, used);
          };
          const pixels = new Uint32Array(3 * widthPx);
          const used = new Uint8Array(3);
          let g = wholeStrips(pixels, scale, minWidthPx);
          paint(g, used);
          for (const shiftPx of shifts) {
            shiftStrips(pixels, widthPx, 3, used, shiftPx);
            g = {
              ...g,
              offset: g.offset + shiftPx,
              fromPx: shiftPx > 0 ? 0 : widthPx + shiftPx,
              toPx: shiftPx > 0 ? shiftPx : widthPx,
            };
            if (shiftPx !== 0) {
              paint(g, used);
            }
          }
          // A whole raster at the final offset, and what each half of the row would show.
          const whole = new Uint32Array(3 * widthPx);
          const wholeUsed = new Uint8Array(3);
          paint(wholeStrips(whole, scale, minWidthPx, g.offset), wholeUsed);
          // What the row shows, band by band, as drawRowStrips draws its strips: the padding
          // from the gap strip, each half from its lane, or the gap strip throughout.
          const shown = (px: Uint32Array, u: Uint8Array) => {
            const strip = (i: number) => Array.from(px.subarray(i * widthPx, (i + 1) * widthPx));
            const padding = u[0] === 1 ? strip(0) : new Array<number>(widthPx).fill(0);
            return {
              padding,
              upper: u[1] === 1 ? strip(1) : padding,
              lower: u[1] === 1 ? strip(u[2] === 1 ? 2 : 1) : padding,
            };
          };
          expect(shown(pixels, used)).toEqual(shown(whole, wholeUsed));
        },
      ),
      { numRuns: 1500 },
    );
  });

  /** One long entry across the strip, then `slivers` slivers, every `mixEvery`th mixed. */
  function longThenSlivers(slivers: number, mixEvery: number): Uint32Array[] {
    const b = new IntervalBuilder();
    b.reset(1);
    b.beginRow(0);
    b.push(0, 0, 0, 47, palette[2], 0, 1);
    for (let k = 0; k < slivers; k++) {
      b.push(0, 0, k + 0.25, k + 0.5, palette[1], -1, 2);
      b.mixes[b.count - 1] = k % mixEvery === 0 ? palette[3] : 0;
    }
    b.endRow(0);
    const pixels = new Uint32Array(3 * widthPx);
    const g = wholeStrips(pixels, 1, 1, 0);
    const used = new Uint8Array(3);
    rasterOpLanes(g, b, 0, b.count, 1, -1, used);
    expect(used[2]).toBe(1);
    const reference = new Uint32Array(widthPx);
    for (let k = 0; k < b.count; k++) {
      const color = b.mixes[k] !== 0 ? b.mixes[k]! : b.colors[k]!;
      const x1 = Math.max(b.starts[k]! + 1, b.ends[k]!);
      rasterSpan(reference, 0, widthPx, b.starts[k]!, x1, rgbaToPixel(color));
    }
    return [pixels.subarray(2 * widthPx), reference];
  }

  it('reaches back past a long entry into each mixed range', () => {
    // Three mixed slivers: each range is read from the long entry on, within the budget.
    const [lower, reference] = longThenSlivers(30, 11);
    expect(Array.from(lower!)).toEqual(Array.from(reference!));
  });

  it('rasterizes the whole lane when reaching back would read too much', () => {
    // A mixed sliver every fifth pixel (ranges cover under half the lane): reading back to the
    // long entry for each would be quadratic, so the lane is painted whole, to the same pixels.
    const [lower, reference] = longThenSlivers(46, 5);
    expect(Array.from(lower!)).toEqual(Array.from(reference!));
  });

  it('rasterizes the whole lane when mixed buckets touch most of it', () => {
    const [lower, reference] = longThenSlivers(46, 3);
    expect(Array.from(lower!)).toEqual(Array.from(reference!));
  });
});
