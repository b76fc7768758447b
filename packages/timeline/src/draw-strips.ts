import type { FrameInput, FrameStats } from './frame-input.ts';
import type { IntervalBuilder } from './interval-buffers.ts';
import { rowEndBefore, rowFirstFrom } from './interval-buffers.ts';
import type { LayoutRow } from './layout.ts';
import { rowScreenTopPx } from './layout.ts';
import type { StripTarget } from './paint-surface.ts';
import { rasterSpan, rgbaToPixel } from './strip-raster.ts';

/** x = offset + rel * scale (CSS px), as in draw-rows.ts. */
interface XTransform {
  readonly scale: number;
  readonly offset: number;
}

/** Which strips got any pixels (reused across frames, grown as needed). */
let stripUsed = new Uint8Array(64);

/** Inner padding of op rows and NVTX lanes, CSS px (gaps fill the whole row). */
export function rowPadPx(row: LayoutRow): number {
  return row.kind === 'nvtx' ? 1 : 3;
}

/** Interval strips of a row: one per NVTX depth; two for an op row (upper and lower half). */
function laneCount(row: LayoutRow): number {
  return row.kind === 'nvtx' ? Math.max(1, row.depthCount) : 2;
}

/**
 * First pass through pixel strips: rasterizes the gaps and intervals of the visible rows in
 * [from, to) into one strip per row (gaps) and per lane (intervals), then draws each used strip
 * with one drawImage. Counts rectangles and gaps into `stats`.
 */
export function drawRowStrips(
  strips: StripTarget,
  input: FrameInput,
  from: number,
  to: number,
  clipTopPx: number,
  clipBottomPx: number,
  x: XTransform,
  fromRel: number,
  toRel: number,
  stats: FrameStats,
): void {
  const { layout, cache, gutterPx, widthPx, axisHeightPx, scrollTopPx } = input;
  const dpr = strips.pixelRatio;
  const stripWidthPx = Math.max(1, Math.ceil((widthPx - gutterPx) * dpr));
  const visible = (row: LayoutRow, topPx: number): boolean =>
    row.kind !== 'group' && topPx < clipBottomPx && topPx + row.heightPx > clipTopPx;
  let count = 0;
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    if (visible(row, axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx))) {
      count += 1 + laneCount(row);
    }
  }
  if (count === 0) {
    return;
  }
  if (stripUsed.length < count) {
    stripUsed = new Uint8Array(count * 2);
  }
  stripUsed.fill(0, 0, count);
  const pixels = strips.beginStrips(count, stripWidthPx);
  // Device x of a Float32 offset: CSS x relative to the gutter, times the pixel ratio.
  const scaleDev = x.scale * dpr;
  const offsetDev = (x.offset - gutterPx) * dpr;
  const raster = (b: IntervalBuilder, r: number, row: LayoutRow, firstStrip: number): number => {
    const multiLane = row.depthCount > 1;
    // Op rows: the lower half takes a merged bucket's second colour (`mixes`).
    const halves = row.kind === 'track' && b === cache.intervals;
    const first = multiLane ? (b.rowFirst[r] ?? 0) : rowFirstFrom(b, r, fromRel);
    const end = multiLane ? first + (b.rowCount[r] ?? 0) : rowEndBefore(b, r, toRel);
    let drawn = 0;
    let mixed = false;
    for (let k = first; k < end; k++) {
      if (b.ends[k]! < fromRel || b.starts[k]! > toRel) {
        continue;
      }
      const x0 = offsetDev + b.starts[k]! * scaleDev;
      const x1 = Math.max(x0 + dpr, offsetDev + b.ends[k]! * scaleDev);
      const strip = firstStrip + b.lanes[k]!;
      rasterSpan(pixels, strip * stripWidthPx, stripWidthPx, x0, x1, rgbaToPixel(b.colors[k]!));
      stripUsed[strip] = 1;
      mixed ||= halves && b.mixes[k] !== 0;
      drawn++;
    }
    if (mixed) {
      // The lower half: every entry again, mixed buckets in their second colour.
      const lower = (firstStrip + 1) * stripWidthPx;
      stripUsed[firstStrip + 1] = 1;
      for (let k = first; k < end; k++) {
        if (b.ends[k]! < fromRel || b.starts[k]! > toRel) {
          continue;
        }
        const x0 = offsetDev + b.starts[k]! * scaleDev;
        const x1 = Math.max(x0 + dpr, offsetDev + b.ends[k]! * scaleDev);
        const mix = b.mixes[k]!;
        rasterSpan(
          pixels,
          lower,
          stripWidthPx,
          x0,
          x1,
          rgbaToPixel(mix === 0 ? b.colors[k]! : mix),
        );
      }
    }
    return drawn;
  };
  let s = 0;
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    if (!visible(row, axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx))) {
      continue;
    }
    stats.gaps += raster(cache.gaps, r, row, s);
    stats.rects += raster(cache.intervals, r, row, s + 1);
    s += 1 + laneCount(row);
  }
  const timelineWidthPx = stripWidthPx / dpr;
  s = 0;
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    const topPx = axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx);
    if (!visible(row, topPx)) {
      continue;
    }
    if (stripUsed[s] === 1) {
      strips.drawStrip(s, gutterPx, topPx, timelineWidthPx, row.heightPx);
    }
    const lanes = laneCount(row);
    const padPx = rowPadPx(row);
    if (row.kind === 'nvtx') {
      const laneHeightPx = row.heightPx / lanes;
      for (let lane = 0; lane < lanes; lane++) {
        if (stripUsed[s + 1 + lane] === 1) {
          const yPx = topPx + lane * laneHeightPx + padPx;
          strips.drawStrip(s + 1 + lane, gutterPx, yPx, timelineWidthPx, laneHeightPx - 2 * padPx);
        }
      }
    } else if (stripUsed[s + 2] === 1) {
      const halfPx = (row.heightPx - 2 * padPx) / 2;
      strips.drawStrip(s + 1, gutterPx, topPx + padPx, timelineWidthPx, halfPx);
      strips.drawStrip(s + 2, gutterPx, topPx + padPx + halfPx, timelineWidthPx, halfPx);
    } else if (stripUsed[s + 1] === 1) {
      // No mixed bucket in view: one strip covers the whole row.
      strips.drawStrip(s + 1, gutterPx, topPx + padPx, timelineWidthPx, row.heightPx - 2 * padPx);
    }
    s += 1 + lanes;
  }
}
