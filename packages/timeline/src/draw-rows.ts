import type { AxisTicks } from './axis-ticks.ts';
import { chrome, textColorOn } from './colors.ts';
import type { FrameInput, FrameStats } from './frame-input.ts';
import { pxPerNs } from './frame-input.ts';
import type { IntervalBuilder } from './interval-buffers.ts';
import { cullEnd, cullFirst } from './interval-buffers.ts';
import type { LayoutRow } from './layout.ts';
import { defaultRowHeights, rowScreenTopPx } from './layout.ts';
import type { FontRole, PaintSurface } from './paint-surface.ts';
import { drawRowStrips, gapBandPx, rowPadPx } from './draw-strips.ts';
import { LabelBatch } from './label-batch.ts';
import { avgCharWidthPerFontPx, fontPx } from './paint-surface.ts';

/** Labels are drawn only on rectangles at least this wide (STYLE.md B.4). */
export const minLabelWidthPx = 5;
const labelCharPx = fontPx.label * avgCharWidthPerFontPx;
/** Fewest glyphs (ellipsis included) a label shows; shorter names show whole. */
const minLabelChars = 4;

/** x = offset + rel * scale, where rel is a Float32 offset from the cache's baseNs. */
export interface XTransform {
  readonly scale: number;
  readonly offset: number;
}

export function xTransform(input: FrameInput): XTransform {
  const scale = pxPerNs(input);
  return { scale, offset: input.gutterPx + (input.cache.baseNs - input.window.startNs) * scale };
}

/** Truncated labels per name id and length, so steady frames allocate no strings. */
export class LabelFitter {
  private readonly cache = new Map<number, (string | undefined)[]>();

  constructor(private readonly nameOf: (nameId: number) => string) {}

  /**
   * The name cut to fit `widthPx` (with an ellipsis), or '' when fewer than `minLabelChars`
   * glyphs fit: a lone letter and an ellipsis tell nothing and text is the costliest thing drawn.
   */
  fit(nameId: number, widthPx: number): string {
    const maxChars = Math.floor((widthPx - 4) / labelCharPx);
    if (widthPx < minLabelWidthPx || maxChars < 1) {
      return '';
    }
    const name = this.nameOf(nameId);
    if (name === '' || maxChars < Math.min(minLabelChars, name.length)) {
      return '';
    }
    let byLength = this.cache.get(nameId);
    if (byLength === undefined) {
      byLength = [];
      this.cache.set(nameId, byLength);
    }
    const n = Math.min(maxChars, name.length);
    let value = byLength[n];
    if (value === undefined) {
      value = n >= name.length ? name : `${name.slice(0, n - 1)}…`;
      byLength[n] = value;
    }
    return value;
  }
}

/**
 * Paints the rows in [from, to) of the layout whose screen band intersects [clipTopPx,
 * clipBottomPx]: stripes, grid lines, gaps, intervals, labels, then the gutter labels.
 */
export function drawRows(
  surface: PaintSurface,
  input: FrameInput,
  from: number,
  to: number,
  clipTopPx: number,
  clipBottomPx: number,
  ticks: AxisTicks,
  labels: LabelFitter,
  stats: FrameStats,
): void {
  const { layout, cache, widthPx, gutterPx, axisHeightPx, scrollTopPx, trace } = input;
  const x = xTransform(input);
  const fromRel = input.window.startNs - cache.baseNs;
  const toRel = input.window.endNs - cache.baseNs;
  const opNames = trace.ops.columns().nameId;
  const rangeNames = trace.ranges.columns().nameId;
  surface.pushClip(0, clipTopPx, widthPx, clipBottomPx - clipTopPx);
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    const topPx = axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx);
    if (topPx >= clipBottomPx || topPx + row.heightPx <= clipTopPx) {
      continue;
    }
    if (row.kind === 'group') {
      surface.fillRect(0, topPx, widthPx, row.heightPx, chrome.headerBand);
      continue;
    }
    if ((r & 1) === 1) {
      surface.fillRect(gutterPx, topPx, widthPx - gutterPx, row.heightPx, chrome.rowStripe);
    }
    surface.line(
      gutterPx,
      topPx + row.heightPx - 0.5,
      widthPx,
      topPx + row.heightPx - 0.5,
      chrome.rowLine,
      1,
    );
  }
  // Grid lines under the intervals.
  const gridScale = pxPerNs(input);
  for (const tick of ticks.ticks) {
    const xPx = Math.round(gutterPx + (tick.timeNs - input.window.startNs) * gridScale) + 0.5;
    surface.line(xPx, clipTopPx, xPx, clipBottomPx, chrome.gridLine, 1);
  }
  surface.pushClip(gutterPx, clipTopPx, widthPx - gutterPx, clipBottomPx - clipTopPx);
  const strips = surface.strips;
  if (strips !== undefined) {
    drawRowStrips(strips, input, from, to, clipTopPx, clipBottomPx, x, fromRel, toRel, stats);
  }
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    const topPx = axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx);
    if (row.kind === 'group' || topPx >= clipBottomPx || topPx + row.heightPx <= clipTopPx) {
      continue;
    }
    if (strips === undefined) {
      stats.gaps += drawIntervals(
        surface,
        cache.gaps,
        r,
        row,
        topPx,
        x,
        fromRel,
        toRel,
        input,
        true,
      );
      // Rectangles in view are counted with the labels below.
      drawIntervals(surface, cache.intervals, r, row, topPx, x, fromRel, toRel, input, false);
    }
    gatherLabels(
      labelBatch,
      cache.intervals,
      r,
      row,
      topPx,
      x,
      fromRel,
      toRel,
      input,
      labels,
      row.kind === 'nvtx' ? rangeNames : opNames,
      stats,
    );
  }
  // Over every row's rectangles (labels stay inside their own row).
  stats.labels += labelBatch.flush(surface);
  surface.popClip();
  // The gutter: row labels over a plain band.
  surface.fillRect(0, clipTopPx, gutterPx, clipBottomPx - clipTopPx, chrome.gutter);
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    const topPx = axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx);
    if (topPx >= clipBottomPx || topPx + row.heightPx <= clipTopPx) {
      continue;
    }
    const midPx =
      topPx +
      Math.min(
        row.heightPx,
        row.kind === 'nvtx' ? defaultRowHeights.nvtxLaneHeightPx : row.heightPx,
      ) /
        2;
    const color = row.kind === 'track' ? chrome.text : chrome.mutedText;
    const label = gutterLabel(row, gutterPx);
    if (row.groupKey !== undefined) {
      // A header that folds: a click on it collapses (▾) or expands (▸) what it holds.
      const chevron = row.collapsed === true ? '▸' : '▾';
      surface.text(chevron, label.leftPx - 12, midPx, color, label.role, 'left');
    }
    surface.text(label.text, label.leftPx, midPx, color, label.role, 'left');
  }
  surface.line(gutterPx - 0.5, clipTopPx, gutterPx - 0.5, clipBottomPx, chrome.rowLine, 1);
  surface.popClip();
}

/** A row's label as the gutter draws it: where, in which font, and whether it was cut. */
export interface GutterLabel {
  readonly text: string;
  readonly leftPx: number;
  readonly role: FontRole;
  /** The label did not fit and ends in an ellipsis (the app shows the whole name on hover). */
  readonly cut: boolean;
}

/** How the gutter `gutterPx` wide draws `row`'s label: indented, after a chevron if it folds. */
export function gutterLabel(row: LayoutRow, gutterPx: number): GutterLabel {
  const role: FontRole = row.kind === 'group' ? 'header' : 'label';
  const leftPx = 8 + row.indent * 12 + (row.groupKey === undefined ? 0 : 12);
  const text = ellipsize(row.label, gutterPx - leftPx - 6, role);
  return { text, leftPx, role, cut: text !== row.label };
}

/**
 * `label` cut with an ellipsis to about `widthPx` of the role's font (estimated from the average
 * glyph width; headers are bold, so a little wider). Rows are few: the cut strings are not cached.
 */
export function ellipsize(label: string, widthPx: number, role: FontRole): string {
  const charPx = fontPx[role] * avgCharWidthPerFontPx * (role === 'header' ? 1.08 : 1);
  const maxChars = Math.max(1, Math.floor(widthPx / charPx));
  return label.length <= maxChars ? label : `${label.slice(0, Math.max(1, maxChars - 1))}…`;
}

/** Screen rectangle of entry k (clamped to the timeline area), into `out` as x0, x1, y, h. */
function entryRect(
  b: IntervalBuilder,
  k: number,
  row: LayoutRow,
  topPx: number,
  x: XTransform,
  input: FrameInput,
  gapBand: boolean,
  out: Float64Array,
): void {
  let x0 = x.offset + b.starts[k]! * x.scale;
  let x1 = x.offset + b.ends[k]! * x.scale;
  if (x1 - x0 < 1) {
    x1 = x0 + 1;
  }
  x0 = Math.max(x0, input.gutterPx - 2);
  x1 = Math.min(x1, input.widthPx + 2);
  out[0] = x0;
  out[1] = x1;
  if (gapBand) {
    // A gap: the band at the bottom of its stream's row, as the strips draw it.
    const bandPx = gapBandPx(row);
    out[2] = topPx + row.heightPx - bandPx;
    out[3] = bandPx;
    return;
  }
  const laneHeightPx =
    row.kind === 'nvtx' ? row.heightPx / Math.max(1, row.depthCount) : row.heightPx;
  const padPx = rowPadPx(row);
  out[2] = topPx + b.lanes[k]! * laneHeightPx + padPx;
  out[3] = laneHeightPx - 2 * padPx;
}

const rectScratch = new Float64Array(4);

/**
 * First pass (STYLE.md B.4 `drawIntervals`): one row's entries that reach the window, culled by
 * binary search on their sorted Float32 starts. Returns how many rectangles it drew.
 */
export function drawIntervals(
  surface: PaintSurface,
  b: IntervalBuilder,
  r: number,
  row: LayoutRow,
  topPx: number,
  x: XTransform,
  fromRel: number,
  toRel: number,
  input: FrameInput,
  gapBand: boolean,
): number {
  const end = cullEnd(b, r, row.depthCount, toRel);
  const out = rectScratch;
  let drawn = 0;
  for (let k = cullFirst(b, r, row.depthCount, fromRel); k < end; k++) {
    if (b.ends[k]! < fromRel || b.starts[k]! > toRel) {
      continue;
    }
    entryRect(b, k, row, topPx, x, input, gapBand, out);
    const mix = gapBand || row.kind !== 'track' ? 0 : b.mixes[k]!;
    if (mix === 0) {
      surface.fillRect(out[0]!, out[2]!, out[1]! - out[0]!, out[3]!, b.colors[k]!);
    } else {
      // A mixed bucket: its busiest kind above, the runner-up below (as draw-strips.ts does).
      const halfPx = out[3]! / 2;
      surface.fillRect(out[0]!, out[2]!, out[1]! - out[0]!, halfPx, b.colors[k]!);
      surface.fillRect(out[0]!, out[2]! + halfPx, out[1]! - out[0]!, halfPx, mix);
    }
    drawn++;
  }
  return drawn;
}

const labelBatch = new LabelBatch();

/**
 * Second pass (`drawLabels`): names on exact rectangles wide enough to hold them, into `batch`
 * (drawn after every row). Counts the row's rectangles in view and the ops they hold into
 * `stats`.
 */
export function gatherLabels(
  batch: LabelBatch,
  b: IntervalBuilder,
  r: number,
  row: LayoutRow,
  topPx: number,
  x: XTransform,
  fromRel: number,
  toRel: number,
  input: FrameInput,
  labels: LabelFitter,
  names: Uint32Array,
  stats: FrameStats,
): void {
  const end = cullEnd(b, r, row.depthCount, toRel);
  const out = rectScratch;
  let ops = 0;
  let rects = 0;
  for (let k = cullFirst(b, r, row.depthCount, fromRel); k < end; k++) {
    if (b.ends[k]! < fromRel || b.starts[k]! > toRel) {
      continue;
    }
    ops += b.counts[k]!;
    rects++;
    const item = b.items[k]!;
    // Clamping to the view only narrows a rectangle: one too narrow unclamped stays so.
    if (item < 0 || (b.ends[k]! - b.starts[k]!) * x.scale < minLabelWidthPx) {
      continue;
    }
    entryRect(b, k, row, topPx, x, input, false, out);
    const widthPx = out[1]! - out[0]!;
    if (widthPx < minLabelWidthPx) {
      continue;
    }
    const text = labels.fit(names[item]!, widthPx);
    if (text !== '') {
      batch.add(text, out[0]! + 2, out[2]! + out[3]! / 2, widthPx - 4, textColorOn(b.colors[k]!));
    }
  }
  stats.drawnOps += ops;
  stats.rects += rects;
}
