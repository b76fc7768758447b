import type { FrameInput, FrameStats } from './frame-input.ts';
import { cullEnd, cullFirst } from './interval-buffers.ts';
import type { LayoutRow } from './layout.ts';
import { rowScreenTopPx } from './layout.ts';
import type { StripTarget } from './paint-surface.ts';
import type { StripGeometry } from './strip-lanes.ts';
import { rasterLanes, rasterOpLanes } from './strip-lanes.ts';

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
 * with one drawImage. An op row's lanes hold its gaps beneath its ops, so where both are in view
 * the row costs one row's height of drawing: the gap strip fills only the padding above and below
 * the lanes. Counts rectangles and gaps into `stats`.
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
  // Device x of a Float32 offset: CSS x relative to the gutter, times the pixel ratio.
  const geometry: StripGeometry = {
    pixels: strips.beginStrips(count, stripWidthPx),
    widthPx: stripWidthPx,
    scale: x.scale * dpr,
    offset: (x.offset - gutterPx) * dpr,
    minWidthPx: dpr,
    fromRel,
    toRel,
  };
  const { gaps, intervals } = cache;
  let s = 0;
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    if (!visible(row, axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx))) {
      continue;
    }
    const lanes = row.depthCount;
    stats.gaps += rasterLanes(
      geometry,
      gaps,
      cullFirst(gaps, r, lanes, fromRel),
      cullEnd(gaps, r, lanes, toRel),
      s,
      stripUsed,
    );
    const first = cullFirst(intervals, r, lanes, fromRel);
    const end = cullEnd(intervals, r, lanes, toRel);
    stats.rects +=
      row.kind === 'track'
        ? rasterOpLanes(
            geometry,
            intervals,
            first,
            end,
            s + 1,
            stripUsed[s] === 1 ? s : -1,
            stripUsed,
          )
        : rasterLanes(geometry, intervals, first, end, s + 1, stripUsed);
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
    const lanes = laneCount(row);
    const padPx = rowPadPx(row);
    const gapsUsed = stripUsed[s] === 1;
    if (row.kind === 'nvtx') {
      // Gaps are a stream's: an NVTX row has none.
      const laneHeightPx = row.heightPx / lanes;
      for (let lane = 0; lane < lanes; lane++) {
        if (stripUsed[s + 1 + lane] === 1) {
          const yPx = topPx + lane * laneHeightPx + padPx;
          strips.drawStrip(s + 1 + lane, gutterPx, yPx, timelineWidthPx, laneHeightPx - 2 * padPx);
        }
      }
    } else if (stripUsed[s + 1] !== 1) {
      if (gapsUsed) {
        strips.drawStrip(s, gutterPx, topPx, timelineWidthPx, row.heightPx);
      }
    } else {
      if (gapsUsed) {
        // The lanes carry the gaps beneath their ops; the gap strip fills the padding only.
        strips.drawStrip(s, gutterPx, topPx, timelineWidthPx, padPx);
        strips.drawStrip(s, gutterPx, topPx + row.heightPx - padPx, timelineWidthPx, padPx);
      }
      const innerPx = row.heightPx - 2 * padPx;
      if (stripUsed[s + 2] === 1) {
        strips.drawStrip(s + 1, gutterPx, topPx + padPx, timelineWidthPx, innerPx / 2);
        strips.drawStrip(
          s + 2,
          gutterPx,
          topPx + padPx + innerPx / 2,
          timelineWidthPx,
          innerPx / 2,
        );
      } else {
        // No mixed bucket in view: one strip covers the whole row.
        strips.drawStrip(s + 1, gutterPx, topPx + padPx, timelineWidthPx, innerPx);
      }
    }
    s += 1 + lanes;
  }
}
