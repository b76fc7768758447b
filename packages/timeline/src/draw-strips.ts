import type { FrameCache } from './frame-cache.ts';
import type { FrameInput, FrameStats } from './frame-input.ts';
import { cullEnd, cullFirst } from './interval-buffers.ts';
import type { LayoutRow, RowLayout } from './layout.ts';
import { rowScreenTopPx } from './layout.ts';
import type { StripTarget } from './paint-surface.ts';
import type { StripGeometry } from './strip-lanes.ts';
import { rasterLanes, rasterOpLanes, shiftStrips } from './strip-lanes.ts';

/** x = offset + rel * scale (CSS px), as in draw-rows.ts. */
interface XTransform {
  readonly scale: number;
  readonly offset: number;
}

/** Inner padding of op rows, NVTX and sync lanes, CSS px. */
export function rowPadPx(row: LayoutRow): number {
  return row.kind === 'track' ? 3 : 1;
}

/**
 * Height of the band at the bottom of a stream row that shows its idle gaps' causes, CSS px.
 * A gap is idle time: drawn at the ops' height it read as work (a stream 4% busy looked full,
 * where Nsight Systems and Perfetto leave idle time empty); the band keeps its cause in view.
 */
export function gapBandPx(row: LayoutRow): number {
  return Math.max(3, Math.round(row.heightPx * 0.3));
}

/**
 * Interval strips of a row: two for an op row (upper and lower half), one per NVTX depth, one
 * for a sync lane.
 */
function laneCount(row: LayoutRow): number {
  return row.kind === 'track' ? 2 : Math.max(1, row.depthCount);
}

/**
 * What the strips of one slot (the scrolling rows, or the pinned band) hold: the rows and
 * geometry they were painted for, and which strips got pixels.
 */
interface StripState {
  layout: RowLayout | undefined;
  cache: FrameCache | undefined;
  generation: number;
  firstRow: number;
  endRow: number;
  count: number;
  widthPx: number;
  scale: number;
  minWidthPx: number;
  /** Device x of rel 0 the pixels were painted at. */
  offsetPx: number;
  used: Uint8Array;
}

const stripStates = new WeakMap<StripTarget, StripState[]>();

function stateOf(strips: StripTarget, slot: number): StripState {
  let states = stripStates.get(strips);
  if (states === undefined) {
    states = [];
    stripStates.set(strips, states);
  }
  let state = states[slot];
  if (state === undefined) {
    state = {
      layout: undefined,
      cache: undefined,
      generation: -1,
      firstRow: 0,
      endRow: 0,
      count: 0,
      widthPx: 0,
      scale: 0,
      minWidthPx: 0,
      offsetPx: 0,
      used: new Uint8Array(64),
    };
    states[slot] = state;
  }
  return state;
}

/**
 * How far, in whole device px, the strips' content moves since `state` was painted, when this
 * frame only pans: the same rows, entries and scale (to 1e-5 px across the strip), and an offset
 * a whole number of pixels away (to 1e-5 px; a drag's rounding is about 1e-9) and less than half
 * the strip. The moved strips are then the frame as painted at an offset that close: an edge
 * pixel whose coverage rounds that near a half level may come out one level of 255 apart.
 * Otherwise undefined: paint everything again.
 */
function panShiftPx(
  state: StripState,
  input: FrameInput,
  firstRow: number,
  endRow: number,
  count: number,
  widthPx: number,
  scale: number,
  offsetPx: number,
  minWidthPx: number,
): number | undefined {
  const { cache } = input;
  if (
    state.layout !== input.layout ||
    state.cache !== cache ||
    state.generation !== cache.generation ||
    state.firstRow !== firstRow ||
    state.endRow !== endRow ||
    state.count !== count ||
    state.widthPx !== widthPx ||
    state.minWidthPx !== minWidthPx ||
    // Entries in the buffers reach about three strips from rel 0.
    Math.abs(state.scale - scale) * 4 * widthPx > 1e-5 * scale
  ) {
    return undefined;
  }
  const shiftPx = Math.round(offsetPx - state.offsetPx);
  const offPx = Math.abs(offsetPx - state.offsetPx - shiftPx);
  return offPx < 1e-5 && 2 * Math.abs(shiftPx) < widthPx ? shiftPx : undefined;
}

/**
 * First pass through pixel strips: rasterizes the gaps and intervals of the visible rows in
 * [from, to) into one strip per row (gaps) and per lane (intervals), then draws each used strip
 * with one drawImage: an op row's gap strip as a band at the bottom of the row (gapBandPx), its
 * lanes, transparent between ops, over it. A frame that only pans moves the strips of the last frame and rasterizes only the
 * columns it uncovers; strips it leaves empty stay marked used (drawn, transparent) until the
 * next whole paint. Counts gaps in view into `stats`.
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
  let firstRow = -1;
  let endRow = -1;
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    if (visible(row, axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx))) {
      count += 1 + laneCount(row);
      firstRow = firstRow < 0 ? r : firstRow;
      endRow = r + 1;
    }
  }
  if (count === 0) {
    return;
  }
  // The pinned band's strips live beside the scrolling rows', so each pans on its own.
  const slot = to <= layout.pinnedRowCount ? 1 : 0;
  const state = stateOf(strips, slot);
  // Device x of a Float32 offset: CSS x relative to the gutter, times the pixel ratio.
  const scale = x.scale * dpr;
  const offsetPx = (x.offset - gutterPx) * dpr;
  const minWidthPx = dpr;
  const shiftPx = panShiftPx(
    state,
    input,
    firstRow,
    endRow,
    count,
    stripWidthPx,
    scale,
    offsetPx,
    minWidthPx,
  );
  const pixels = strips.beginStrips(slot, count, stripWidthPx, shiftPx !== undefined);
  let geometry: StripGeometry;
  if (shiftPx === undefined) {
    Object.assign(state, {
      layout,
      cache,
      generation: cache.generation,
      firstRow,
      endRow,
      count,
      widthPx: stripWidthPx,
      scale,
      minWidthPx,
      offsetPx,
    });
    if (state.used.length < count) {
      state.used = new Uint8Array(count * 2);
    }
    state.used.fill(0, 0, count);
    geometry = {
      pixels,
      widthPx: stripWidthPx,
      scale,
      offset: offsetPx,
      minWidthPx,
      fromPx: 0,
      toPx: stripWidthPx,
    };
  } else {
    // The last frame's pixels moved by whole pixels, and the uncovered columns painted at that
    // frame's scale and offset moved by the same: what painting it all again would give.
    state.offsetPx += shiftPx;
    shiftStrips(pixels, stripWidthPx, count, state.used, shiftPx);
    geometry = {
      pixels,
      widthPx: stripWidthPx,
      scale: state.scale,
      offset: state.offsetPx,
      minWidthPx,
      fromPx: shiftPx > 0 ? 0 : stripWidthPx + shiftPx,
      toPx: shiftPx > 0 ? shiftPx : stripWidthPx,
    };
  }
  const used = state.used;
  stats.paintedColumnsPx += geometry.toPx - geometry.fromPx;
  if (geometry.toPx > geometry.fromPx) {
    rasterRows(geometry, input, firstRow, endRow, used, visible);
  }
  const { gaps } = cache;
  for (let r = firstRow; r < endRow; r++) {
    const lanes = layout.rows[r]!.depthCount;
    for (
      let k = cullFirst(gaps, r, lanes, fromRel), end = cullEnd(gaps, r, lanes, toRel);
      k < end;
      k++
    ) {
      if (gaps.ends[k]! >= fromRel && gaps.starts[k]! <= toRel) {
        stats.gaps++;
      }
    }
  }
  const timelineWidthPx = stripWidthPx / dpr;
  let s = 0;
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    const topPx = axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx);
    if (!visible(row, topPx)) {
      continue;
    }
    const lanes = laneCount(row);
    const padPx = rowPadPx(row);
    const gapsUsed = used[s] === 1;
    if (row.kind !== 'track') {
      // Gaps are a stream's: an NVTX row or a sync lane has none.
      const laneHeightPx = row.heightPx / lanes;
      for (let lane = 0; lane < lanes; lane++) {
        if (used[s + 1 + lane] === 1) {
          const yPx = topPx + lane * laneHeightPx + padPx;
          strips.drawStrip(s + 1 + lane, gutterPx, yPx, timelineWidthPx, laneHeightPx - 2 * padPx);
        }
      }
    } else {
      if (gapsUsed) {
        const bandPx = gapBandPx(row);
        strips.drawStrip(s, gutterPx, topPx + row.heightPx - bandPx, timelineWidthPx, bandPx);
      }
      if (used[s + 1] !== 1) {
        s += 1 + lanes;
        continue;
      }
      const innerPx = row.heightPx - 2 * padPx;
      if (used[s + 2] === 1) {
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

/**
 * Paints the columns of `g` for the visible rows in [firstRow, endRow): each row's gaps, then
 * its lanes over them, strips in the order drawRowStrips counted them.
 */
function rasterRows(
  g: StripGeometry,
  input: FrameInput,
  firstRow: number,
  endRow: number,
  used: Uint8Array,
  visible: (row: LayoutRow, topPx: number) => boolean,
): void {
  const { layout, cache, axisHeightPx, scrollTopPx } = input;
  const { gaps, intervals } = cache;
  // Entries that may paint the columns, with a pixel to spare each side: a superset, the
  // pixels decide.
  const fromRel = (g.fromPx - 1 - g.minWidthPx - g.offset) / g.scale;
  const toRel = (g.toPx + 1 - g.offset) / g.scale;
  let s = 0;
  for (let r = firstRow; r < endRow; r++) {
    const row = layout.rows[r]!;
    if (!visible(row, axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx))) {
      continue;
    }
    const lanes = row.depthCount;
    rasterLanes(
      g,
      gaps,
      cullFirst(gaps, r, lanes, fromRel),
      cullEnd(gaps, r, lanes, toRel),
      s,
      used,
    );
    const first = cullFirst(intervals, r, lanes, fromRel);
    const end = cullEnd(intervals, r, lanes, toRel);
    if (row.kind === 'track') {
      // Transparent between ops: the gap band drawn beneath shows through.
      rasterOpLanes(g, intervals, first, end, s + 1, -1, used);
    } else {
      rasterLanes(g, intervals, first, end, s + 1, used);
    }
    s += 1 + laneCount(row);
  }
}
