import { chrome } from './colors.ts';
import type { FrameInput } from './frame-input.ts';
import { pxPerNs } from './frame-input.ts';
import { rowScreenTopPx } from './layout.ts';
import type { PaintSurface } from './paint-surface.ts';

/**
 * Where a search's matches are in a trace too big to hold (tiled mode): per track, the buckets
 * of equal width `bucketNs` from time 0 that hold match starts, ascending, with their counts
 * (the server's answer). Drawn where the view shows tiles; inside a window of exact ops the
 * window's own matches are marked instead.
 */
export interface SearchBuckets {
  readonly bucketNs: number;
  /** Track → its buckets (ascending bucket indices) and the matches in each. */
  readonly tracks: ReadonlyMap<
    number,
    { readonly buckets: Float64Array; readonly counts: Uint32Array }
  >;
}

/** Builds SearchBuckets from per-track arrays (checked: ascending buckets, positive counts). */
export function searchBuckets(
  bucketNs: number,
  rows: readonly {
    readonly track: number;
    readonly buckets: readonly number[];
    readonly counts: readonly number[];
  }[],
): SearchBuckets {
  if (!(bucketNs > 0)) {
    throw new Error(`search buckets need a positive bucketNs, got ${bucketNs}`);
  }
  const tracks = new Map<number, { buckets: Float64Array; counts: Uint32Array }>();
  for (const row of rows) {
    if (row.buckets.length !== row.counts.length) {
      throw new Error(`search buckets of track ${row.track}: buckets and counts differ in length`);
    }
    for (let k = 1; k < row.buckets.length; k++) {
      if (!(row.buckets[k]! > row.buckets[k - 1]!)) {
        throw new Error(`search buckets of track ${row.track} are not ascending at ${k}`);
      }
    }
    tracks.set(row.track, {
      buckets: Float64Array.from(row.buckets),
      counts: Uint32Array.from(row.counts),
    });
  }
  return { bucketNs, tracks };
}

/** First index of `sorted` whose value is at least `value`. */
function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/**
 * A strip at the foot of each stream row under every visible bucket that holds matches (at
 * least 2 px wide, merged where they touch on screen), as the normal view marks matching ops.
 * Returns the strips drawn.
 */
export function drawSearchBuckets(
  surface: PaintSurface,
  input: FrameInput,
  marks: SearchBuckets,
): number {
  const { layout, window, gutterPx, widthPx, axisHeightPx } = input;
  const scale = pxPerNs(input);
  const firstBucket = Math.floor(window.startNs / marks.bucketNs);
  const lastBucket = Math.floor(window.endNs / marks.bucketNs);
  let drawn = 0;
  surface.pushClip(gutterPx, axisHeightPx, widthPx - gutterPx, input.heightPx - axisHeightPx);
  for (const row of layout.rows) {
    const list = row.kind === 'track' ? marks.tracks.get(row.track) : undefined;
    if (list === undefined) {
      continue;
    }
    const topPx = axisHeightPx + rowScreenTopPx(layout, row, input.scrollTopPx);
    if (topPx > input.heightPx || topPx + row.heightPx < axisHeightPx) {
      continue;
    }
    let runX0 = Number.NaN;
    let runX1 = Number.NaN;
    const flush = (): void => {
      if (!Number.isNaN(runX0)) {
        surface.fillRect(runX0, topPx + row.heightPx - 4, runX1 - runX0, 3, chrome.currentMatch);
        drawn++;
      }
    };
    for (let k = lowerBound(list.buckets, firstBucket); k < list.buckets.length; k++) {
      const b = list.buckets[k]!;
      if (b > lastBucket) {
        break;
      }
      const x0 = gutterPx + (b * marks.bucketNs - window.startNs) * scale;
      const x1 = Math.max(x0 + 2, x0 + marks.bucketNs * scale);
      if (x0 <= runX1) {
        runX1 = Math.max(runX1, x1);
      } else {
        flush();
        runX0 = x0;
        runX1 = x1;
      }
    }
    flush();
  }
  surface.popClip();
  return drawn;
}
