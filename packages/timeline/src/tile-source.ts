import type { TileSet } from '@streamscope/trace';
import { noKind } from '@streamscope/trace';
import { kindColors, withAlpha } from './colors.ts';
import type { IntervalBuilder } from './interval-buffers.ts';
import { densityAlpha } from './lod.ts';
import type { RangeLanes } from './range-lanes.ts';

/**
 * Where a view of a trace too big to hold draws its stream rows from (a stored trace's
 * level-of-detail tiles, fetched by the app): the view's own trace then holds only the exact ops
 * of a window. Every call answers from what is cached at once; `want` asks for what is missing
 * and the source bumps `version` (and the app redraws) when it arrives.
 */
export interface TileSource {
  /** Changes whenever cached tiles or the exact window change: the frame cache rebuilds. */
  readonly version: number;
  /** The whole trace's span, ns (what Fit shows: the view's own trace is only a window). */
  readonly spanNs: number;
  /**
   * The whole trace's range lanes, once known: rows are labelled and sized from them, as the
   * normal view's are from its whole trace (the view's own trace holds a window of ranges).
   */
  readonly rangeLanes?: RangeLanes | undefined;
  /**
   * The time range the view's trace holds every op of (ns since the origin; infinite on a side
   * where it reaches the trace's end), or undefined; the view draws from ops inside it when the
   * window fits in it, from tiles otherwise.
   */
  exactRange(): { readonly startNs: number; readonly endNs: number } | undefined;
  /** The frame will show [fromNs, toNs] at `nsPerPx`: fetch what is not cached (never waits). */
  want(fromNs: number, toNs: number, nsPerPx: number): void;
  /**
   * Appends track `track`'s bucket rectangles over [fromNs, toNs] for `row`, from the cached
   * tiles that best fit `nsPerPx`, in start order; returns the ops they stand for.
   */
  appendTrack(
    out: IntervalBuilder,
    row: number,
    track: number,
    fromNs: number,
    toNs: number,
    baseNs: number,
    nsPerPx: number,
  ): number;
}

/**
 * Appends the buckets of `set` for `track` that reach into [fromNs, toNs] as rectangles: from
 * the bucket's start over its span (a long op reaches past its bucket), in the dominant kind's
 * colour with the busy fraction as alpha, the second kind as the mix. Starts stay sorted;
 * returns the ops they stand for.
 */
export function appendTileBuckets(
  out: IntervalBuilder,
  row: number,
  set: TileSet,
  track: number,
  fromNs: number,
  toNs: number,
  baseNs: number,
): number {
  const first = set.trackFirst[track];
  const end = set.trackFirst[track + 1];
  if (first === undefined || end === undefined) {
    return 0;
  }
  const { bucketNs, buckets, spanNs, busyNs, kinds, opCounts } = set;
  let ops = 0;
  for (let k = first; k < end; k++) {
    const startNs = buckets[k]! * bucketNs;
    const endNs = startNs + Math.max(bucketNs, spanNs[k]!);
    if (endNs < fromNs || startNs > toNs) {
      continue;
    }
    const alpha = densityAlpha(busyNs[k]! / (endNs - startNs));
    const kind = kinds[k]!;
    const main = kindColors[(kind & 0xff) % kindColors.length]!;
    const second = kind >> 8;
    out.push(
      row,
      0,
      Math.fround(startNs - baseNs),
      Math.fround(endNs - baseNs),
      withAlpha(main, alpha),
      -1,
      opCounts[k]!,
    );
    if (second !== noKind) {
      out.mixes[out.count - 1] = withAlpha(kindColors[second % kindColors.length]!, alpha);
    }
    ops += opCounts[k]!;
  }
  return ops;
}
