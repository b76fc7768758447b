import { withAlpha } from './colors.ts';
import type { IntervalBuilder } from './interval-buffers.ts';

/**
 * The level of detail for a zoom: ns per px rounded up to a power of two (at least 1 ns), so a
 * bucket is one to two pixels wide and buckets stay put while panning.
 */
export function bucketNsFor(nsPerPx: number): number {
  if (!(nsPerPx > 1)) {
    return 1;
  }
  return 2 ** Math.ceil(Math.log2(nsPerPx) - 1e-9);
}

/**
 * Items shorter than this many buckets (2 to 4 px) merge into buckets; longer ones are drawn
 * exactly. Below it an op is a sliver whose own rectangle would cost a draw call per op.
 */
export const exactMinBuckets = 2;

/** Density steps of a merged bucket: busy fraction → alpha (a denser bucket reads darker). */
export function densityAlpha(busyFraction: number): number {
  if (busyFraction >= 0.66) {
    return 1;
  }
  if (busyFraction >= 0.33) {
    return 0.7;
  }
  return 0.42;
}

/** Where intervals come from: columns indexed by item, a start-sorted index, a class per item. */
export interface IntervalSource {
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  /** Class of each item (op kind, or range name id); colour = classColors[class % length]. */
  readonly classes: Uint8Array | Uint32Array;
  readonly classColors: Uint32Array;
}

/** Scratch busy-time per class, reused by every call (no allocation per frame). */
let busyScratch = new Float64Array(32);

/**
 * Appends `order`'s items (sorted by start) to `out` for one row and lane: items at least
 * `exactMinBuckets` long as exact rectangles; shorter ones merged per bucket into one rectangle in the
 * colour of the class that kept the bucket busiest (and a second colour, `mixes`, when another
 * class kept it at least a third as busy), with the bucket's busy fraction as alpha.
 * Adjacent merged buckets of the same colour and density join into one rectangle. Every item is
 * covered by a rectangle (nothing is lost), and counts add up to `order.length`.
 */
export function bucketIntervals(
  out: IntervalBuilder,
  row: number,
  lane: number,
  order: Uint32Array,
  source: IntervalSource,
  baseNs: number,
  bucketNs: number,
): void {
  const { startNs, endNs, classes, classColors } = source;
  const classCount = classColors.length;
  const exactNs = bucketNs * exactMinBuckets;
  if (busyScratch.length < classCount) {
    busyScratch = new Float64Array(classCount * 2);
  }
  const busy = busyScratch;
  busy.fill(0, 0, classCount);
  let pendingCount = 0;
  let pendingBucket = 0;
  let pendingStartNs = 0;
  let pendingEndNs = 0;
  let pendingBusyNs = 0;
  let pendingItem = -1;
  // The previous merged rectangle this row/lane emitted (index into out), for joining.
  let lastMerged = -1;
  // Start of the last rectangle emitted: a bucket never starts before it, so starts stay sorted.
  let lastStartNs = -Infinity;

  const flush = (): void => {
    let best = 0;
    let bestNs = -1;
    let second = -1;
    let secondNs = -1;
    for (let c = 0; c < classCount; c++) {
      const ns = busy[c]!;
      if (ns > bestNs) {
        second = best;
        secondNs = bestNs;
        bestNs = ns;
        best = c;
      } else if (ns > secondNs) {
        secondNs = ns;
        second = c;
      }
      busy[c] = 0;
    }
    const spanNs = pendingEndNs - pendingStartNs;
    const alpha = densityAlpha(pendingBusyNs / spanNs);
    const color = withAlpha(classColors[best]!, alpha);
    const secondColor = classColors[second];
    const mix =
      second >= 0 && secondNs > 0 && secondNs * 3 >= bestNs && secondColor !== classColors[best]
        ? withAlpha(secondColor!, alpha)
        : 0;
    const startRel = Math.fround(pendingStartNs - baseNs);
    const endRel = Math.fround(pendingEndNs - baseNs);
    if (
      lastMerged === out.count - 1 &&
      lastMerged >= 0 &&
      out.colors[lastMerged] === color &&
      out.mixes[lastMerged] === mix &&
      out.ends[lastMerged]! >= startRel
    ) {
      out.extendLast(endRel, pendingCount);
    } else {
      out.push(
        row,
        lane,
        startRel,
        endRel,
        color,
        pendingCount === 1 ? pendingItem : -1,
        pendingCount,
      );
      lastMerged = out.count - 1;
      lastStartNs = pendingStartNs;
      out.mixes[lastMerged] = mix;
    }
    pendingCount = 0;
    pendingBusyNs = 0;
  };

  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const s = startNs[i]!;
    const e = endNs[i]!;
    const durNs = e - s;
    if (durNs >= exactNs) {
      if (pendingCount > 0) {
        flush();
      }
      out.push(
        row,
        lane,
        Math.fround(s - baseNs),
        Math.fround(e - baseNs),
        classColors[classes[i]! % classCount]!,
        i,
        1,
      );
      lastStartNs = s;
      continue;
    }
    const bucket = Math.floor(s / bucketNs);
    if (pendingCount > 0 && bucket !== pendingBucket) {
      flush();
    }
    if (pendingCount === 0) {
      pendingBucket = bucket;
      pendingStartNs = Math.max(bucket * bucketNs, lastStartNs);
      pendingEndNs = bucket * bucketNs + bucketNs;
      pendingItem = i;
    }
    if (e > pendingEndNs) {
      pendingEndNs = e;
    }
    const c = classes[i]! % classCount;
    // Instants (event records) weigh a little, so a bucket of them still takes their colour.
    busy[c] = busy[c]! + durNs + bucketNs / 64;
    pendingBusyNs += durNs;
    pendingCount++;
  }
  if (pendingCount > 0) {
    flush();
  }
}
