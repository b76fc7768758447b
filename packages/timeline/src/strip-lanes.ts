import type { IntervalBuilder } from './interval-buffers.ts';
import { rasterSpan, rgbaToPixel } from './strip-raster.ts';

/**
 * Where one frame's entries land in its strips: device x = offset + rel * scale, every entry at
 * least `minWidthPx` wide. Only pixels [fromPx, toPx) are painted (the whole strip, or the
 * columns a pan uncovered); an entry paints there what it would in a whole raster, since each
 * pixel's coverage depends on the entry alone.
 */
export interface StripGeometry {
  readonly pixels: Uint32Array;
  /** Width of every strip, device px. */
  readonly widthPx: number;
  /** Device px per ns. */
  readonly scale: number;
  /** Device x of rel 0. */
  readonly offset: number;
  readonly minWidthPx: number;
  /** Painted columns: whole device px, 0 <= fromPx < toPx <= widthPx. */
  readonly fromPx: number;
  readonly toPx: number;
}

/**
 * Pixel ranges touched by mixed buckets, as triples: first pixel, last pixel (inclusive), and the
 * first entry that reaches the range. Reused across frames and grown as needed.
 */
let mixedRanges = new Int32Array(192);
/** Per entry of the row in hand: the furthest device x any entry up to it reaches. */
let reachScratch = new Float64Array(1024);

/**
 * Rasterizes entries [first, end) of `b` into the strips from `firstStrip` on (entry k into
 * `firstStrip + lanes[k]`), each in its own colour, over the painted columns (which must be
 * transparent). Marks the strips it paints in `used`.
 */
export function rasterLanes(
  g: StripGeometry,
  b: IntervalBuilder,
  first: number,
  end: number,
  firstStrip: number,
  used: Uint8Array,
): void {
  const { pixels, widthPx, scale, offset, minWidthPx, fromPx, toPx } = g;
  for (let k = first; k < end; k++) {
    const x0 = offset + b.starts[k]! * scale;
    const x1 = Math.max(x0 + minWidthPx, offset + b.ends[k]! * scale);
    if (x1 <= fromPx || x0 >= toPx) {
      continue;
    }
    const strip = firstStrip + b.lanes[k]!;
    rasterSpan(
      pixels,
      strip * widthPx,
      widthPx,
      x0 > fromPx ? x0 : fromPx,
      x1 < toPx ? x1 : toPx,
      rgbaToPixel(b.colors[k]!),
    );
    used[strip] = 1;
  }
}

/**
 * Moves the pixels of every used strip `shiftPx` to the right (left when negative) and clears
 * the columns it uncovers, for a pan: then paint those columns.
 */
export function shiftStrips(
  pixels: Uint32Array,
  widthPx: number,
  count: number,
  used: Uint8Array,
  shiftPx: number,
): void {
  for (let i = 0; i < count; i++) {
    if (used[i] !== 1) {
      continue;
    }
    const at = i * widthPx;
    if (shiftPx > 0) {
      pixels.copyWithin(at + shiftPx, at, at + widthPx - shiftPx);
      pixels.fill(0, at, at + shiftPx);
    } else {
      pixels.copyWithin(at, at - shiftPx, at + widthPx);
      pixels.fill(0, at + widthPx + shiftPx, at + widthPx);
    }
  }
}

/**
 * An op row's two lanes: entries [first, end) (sorted by start) into `upper` in their colour,
 * and into `upper + 1` with merged buckets in their second colour (`mixes`), so the lower half
 * of the row shows a kind that shared a bucket. Both lanes start as a copy of strip `under`
 * (the row's gaps, composited beneath the ops) or transparent when `under` is -1. Only the
 * painted columns change in a lane already used.
 *
 * The lower lane differs from the upper only in pixels a mixed bucket touches: it is the upper
 * lane copied, with those pixel ranges reset and every entry reaching them rasterized again,
 * clipped to them. Clipping to whole pixels leaves each pixel's sequence of blends unchanged, so
 * this paints exactly what rasterizing every entry again would. The lower lane is marked used
 * once a mixed bucket is in view; while it is marked, its painted columns are kept up to date
 * with or without one (outside them it holds what earlier frames painted).
 */
export function rasterOpLanes(
  g: StripGeometry,
  b: IntervalBuilder,
  first: number,
  end: number,
  upper: number,
  under: number,
  used: Uint8Array,
): void {
  const { pixels, widthPx, scale, offset, minWidthPx, fromPx, toPx } = g;
  const upperAt = upper * widthPx;
  // A lane starts as the gaps beneath it. One not used until now may hold an earlier frame's
  // pixels outside the painted columns (or lack the gaps there): it starts over whole.
  const whole = used[upper] !== 1;
  if (under >= 0 || whole) {
    resetLane(pixels, upperAt, under, widthPx, whole ? 0 : fromPx, (whole ? widthPx : toPx) - 1);
  }
  if (reachScratch.length < end - first) {
    reachScratch = new Float64Array(Math.max(end - first, reachScratch.length * 2));
  }
  const reach = reachScratch;
  let reachPx = -Infinity;
  let rangeCount = 0;
  for (let k = first; k < end; k++) {
    const x0 = offset + b.starts[k]! * scale;
    const x1 = Math.max(x0 + minWidthPx, offset + b.ends[k]! * scale);
    if (x1 <= fromPx || x0 >= toPx) {
      reach[k - first] = reachPx;
      continue;
    }
    // The pixels this entry paints: floor of the clipped start to ceil of the clipped end - 1.
    const from = x0 > fromPx ? x0 : fromPx;
    const to = x1 < toPx ? x1 : toPx;
    rasterSpan(pixels, upperAt, widthPx, from, to, rgbaToPixel(b.colors[k]!));
    used[upper] = 1;
    const before = reachPx;
    if (x1 > reachPx) {
      reachPx = x1;
    }
    reach[k - first] = reachPx;
    if (b.mixes[k] === 0) {
      continue;
    }
    const p0 = Math.floor(from);
    const p1 = Math.ceil(to) - 1;
    const last = 3 * rangeCount - 2;
    if (rangeCount > 0 && p0 <= mixedRanges[last]! + 1) {
      mixedRanges[last] = Math.max(p1, mixedRanges[last]!);
      continue;
    }
    if (3 * rangeCount + 3 > mixedRanges.length) {
      const grown = new Int32Array(mixedRanges.length * 2);
      grown.set(mixedRanges);
      mixedRanges = grown;
    }
    // Entries before k reach p0 only while the furthest reach up to them passes it.
    let from_ = k;
    if (before > p0) {
      while (from_ > first && reach[from_ - 1 - first]! > p0) {
        from_--;
      }
    }
    mixedRanges[3 * rangeCount] = p0;
    mixedRanges[3 * rangeCount + 1] = p1;
    mixedRanges[3 * rangeCount + 2] = from_;
    rangeCount++;
  }
  if (rangeCount > 0 || used[upper + 1] === 1) {
    lowerLane(g, b, first, end, upper, under, rangeCount, used[upper + 1] === 1);
    used[upper + 1] = 1;
  }
}

/** Lane pixels [p0, p1] back to their start: the `under` strip's, or transparent. */
function resetLane(
  pixels: Uint32Array,
  laneAt: number,
  under: number,
  widthPx: number,
  p0: number,
  p1: number,
): void {
  if (p1 - p0 > 32) {
    if (under < 0) {
      pixels.fill(0, laneAt + p0, laneAt + p1 + 1);
    } else {
      pixels.copyWithin(laneAt + p0, under * widthPx + p0, under * widthPx + p1 + 1);
    }
    return;
  }
  // A loop beats the typed array calls on the few pixels a mixed bucket touches.
  const underAt = under * widthPx;
  for (let p = p0; p <= p1; p++) {
    pixels[laneAt + p] = under < 0 ? 0 : pixels[underAt + p]!;
  }
}

/**
 * The lower lane from the upper one and the mixed ranges, over the painted columns (the whole
 * lane when it was not `live`: it then held nothing, and no mixed bucket was in view outside the
 * painted columns). Each range is reset, then the entries from the first that reaches it to the
 * last that starts in it rasterized again, clipped to it. When that would read more than four
 * times the row's entries (a long op reaching back over many mixed buckets), the columns are
 * rasterized whole instead, which paints the same pixels.
 */
function lowerLane(
  g: StripGeometry,
  b: IntervalBuilder,
  first: number,
  end: number,
  upper: number,
  under: number,
  rangeCount: number,
  live: boolean,
): void {
  const { pixels, widthPx, fromPx, toPx } = g;
  const upperAt = upper * widthPx;
  const lowerAt = upperAt + widthPx;
  const copyFrom = live ? fromPx : 0;
  const copyTo = live ? toPx : widthPx;
  pixels.copyWithin(lowerAt + copyFrom, upperAt + copyFrom, upperAt + copyTo);
  let coveredPx = 0;
  for (let i = 0; i < rangeCount; i++) {
    coveredPx += mixedRanges[3 * i + 1]! - mixedRanges[3 * i]! + 1;
  }
  // Where mixed buckets touch most of the columns, one pass over every entry costs less.
  if (2 * coveredPx <= toPx - fromPx && lowerRanges(g, b, first, end, lowerAt, under, rangeCount)) {
    return;
  }
  resetLane(pixels, lowerAt, under, widthPx, fromPx, toPx - 1);
  rasterSecondColors(g, b, first, end, lowerAt, fromPx, toPx - 1, Infinity);
}

/** The lower lane by ranges; false (the lane half painted) once the reading budget runs out. */
function lowerRanges(
  g: StripGeometry,
  b: IntervalBuilder,
  first: number,
  end: number,
  lowerAt: number,
  under: number,
  rangeCount: number,
): boolean {
  const { pixels, widthPx } = g;
  let budget = 4 * (end - first);
  for (let i = 0; i < rangeCount; i++) {
    const p0 = mixedRanges[3 * i]!;
    const p1 = mixedRanges[3 * i + 1]!;
    resetLane(pixels, lowerAt, under, widthPx, p0, p1);
    const read = rasterSecondColors(g, b, mixedRanges[3 * i + 2]!, end, lowerAt, p0, p1, budget);
    if (read < 0) {
      return false;
    }
    budget -= read;
  }
  return true;
}

/**
 * Entries from `from` on that start before pixel p1 + 1, each in its second colour where it has
 * one, clipped to pixels [p0, p1] of the lane at `laneAt`. Returns how many entries it read, or
 * -1 once that passes `budget` (having painted part of the range).
 */
function rasterSecondColors(
  g: StripGeometry,
  b: IntervalBuilder,
  from: number,
  end: number,
  laneAt: number,
  p0: number,
  p1: number,
  budget: number,
): number {
  const { pixels, widthPx, scale, offset, minWidthPx } = g;
  let read = 0;
  for (let k = from; k < end; k++) {
    const x0 = offset + b.starts[k]! * scale;
    if (x0 >= p1 + 1) {
      break;
    }
    if (++read > budget) {
      return -1;
    }
    const x1 = Math.max(x0 + minWidthPx, offset + b.ends[k]! * scale);
    if (x1 <= p0) {
      continue;
    }
    const mix = b.mixes[k]!;
    rasterSpan(
      pixels,
      laneAt,
      widthPx,
      x0 > p0 ? x0 : p0,
      x1 < p1 + 1 ? x1 : p1 + 1,
      rgbaToPixel(mix === 0 ? b.colors[k]! : mix),
    );
  }
  return read;
}
