import { FlowKind } from '@streamscope/trace';
import type { AxisTick, AxisTicks } from './axis-ticks.ts';
import { axisLabelWidthPx, placeAxisLabels } from './axis-ticks.ts';
import { chrome } from './colors.ts';
import type { FrameInput } from './frame-input.ts';
import { pxPerNs } from './frame-input.ts';
import type { RowLayout } from './layout.ts';
import { rowScreenTopPx } from './layout.ts';
import { opRowIndex, rowOps, rowOpsAccept } from './sync-lane.ts';
import type { PaintSurface } from './paint-surface.ts';
import { avgCharWidthPerFontPx, fontPx } from './paint-surface.ts';
import type { SearchMarks } from './search-marks.ts';

/**
 * The time axis band at the top: tick marks, labels and the label base when there is one. A tick
 * label that one of `coveredPx` (the cursor's and the marked range's label boxes) would cover in
 * part is left out.
 */
export function drawAxis(
  surface: PaintSurface,
  input: FrameInput,
  ticks: AxisTicks,
  coveredPx: readonly (readonly [number, number])[] = [],
): void {
  const { widthPx, gutterPx, axisHeightPx } = input;
  surface.fillRect(0, 0, widthPx, axisHeightPx, chrome.background);
  surface.fillRect(0, 0, gutterPx, axisHeightPx, chrome.gutter);
  const scale = pxPerNs(input);
  surface.pushClip(gutterPx, 0, widthPx - gutterPx, axisHeightPx);
  const tickXPx = (tick: AxisTick): number =>
    Math.round(gutterPx + (tick.timeNs - input.window.startNs) * scale) + 0.5;
  // Labels that would pass the right edge shift left or drop: never a clipped "20" for "2000 µs".
  const charPx = fontPx.axis * avgCharWidthPerFontPx;
  const labelXPx = placeAxisLabels(ticks.ticks, tickXPx, gutterPx, widthPx - 2, charPx);
  ticks.ticks.forEach((tick, i) => {
    const xPx = tickXPx(tick);
    surface.line(xPx, axisHeightPx - (tick.major ? 9 : 6), xPx, axisHeightPx, chrome.axisLine, 1);
    const textXPx = labelXPx[i]!;
    const textEndPx = textXPx + axisLabelWidthPx(tick.label, charPx);
    const covered = coveredPx.some(([left, right]) => textXPx < right && textEndPx > left);
    if (!Number.isNaN(textXPx) && !covered) {
      surface.text(tick.label, textXPx, axisHeightPx / 2 - 2, chrome.mutedText, 'axis', 'left');
    }
  });
  surface.popClip();
  const base = ticks.baseLabel === '' ? `time (${ticks.unit})` : `at ${ticks.baseLabel}`;
  surface.text(base, 8, axisHeightPx / 2, chrome.mutedText, 'axis', 'left');
  surface.line(0, axisHeightPx - 0.5, widthPx, axisHeightPx - 0.5, chrome.axisLine, 1);
}

/** Screen band of layout row `r` into `out` (top, height); false when there is no such row. */
function rowBand(input: FrameInput, r: number, out: Float64Array): boolean {
  const layout: RowLayout = input.layout;
  const row = layout.rows[r];
  if (row === undefined) {
    return false;
  }
  out[0] = input.axisHeightPx + rowScreenTopPx(layout, row, input.scrollTopPx);
  out[1] = row.heightPx;
  return true;
}

/** Screen band of the row op `op` is drawn in (its sync lane for a host wait that has one). */
function opBand(input: FrameInput, op: number, out: Float64Array): boolean {
  const ops = input.trace.ops.columns();
  return rowBand(input, opRowIndex(input.layout, ops.track[op]!, ops.kind[op]!), out);
}

/** Vertical centre on screen of the row op `op` is drawn in, or NaN when it has none. */
function opMidPx(input: FrameInput, op: number): number {
  return opBand(input, op, midBand) ? midBand[0]! + midBand[1]! / 2 : Number.NaN;
}

const band = new Float64Array(2);
const midBand = new Float64Array(2);

/** Search matches (a strip under each visible match), the current match and the selection. */
export function drawMarks(surface: PaintSurface, input: FrameInput): void {
  const { trace, layout, window, gutterPx, widthPx, search } = input;
  const ops = trace.ops.columns();
  const scale = pxPerNs(input);
  const xOf = (ns: number): number => gutterPx + (ns - window.startNs) * scale;
  surface.pushClip(
    gutterPx,
    input.axisHeightPx,
    widthPx - gutterPx,
    input.heightPx - input.axisHeightPx,
  );
  if (search !== undefined) {
    eachMarkedOp(input, search, (x0, x1) => {
      surface.fillRect(x0, band[0]! + band[1]! - 4, x1 - x0, 3, chrome.currentMatch);
      surface.strokeRect(x0, band[0]! + 1.5, x1 - x0, band[1]! - 3, chrome.searchMatchEdge, 1);
    });
  }
  if (input.highlight !== undefined) {
    eachMarkedOp(input, input.highlight, (x0, x1) => {
      surface.strokeRect(x0 - 1, band[0]! + 1, x1 - x0 + 2, band[1]! - 2, chrome.selection, 1.5);
    });
  }
  const outline = (op: number | undefined, color: number, lineWidthPx: number): void => {
    if (op === undefined || op < 0 || op >= ops.count || !opBand(input, op, band)) {
      return;
    }
    const x0 = xOf(ops.startNs[op]!);
    const x1 = Math.max(x0 + 3, xOf(ops.endNs[op]!));
    surface.strokeRect(x0 - 1, band[0]! + 1, x1 - x0 + 2, band[1]! - 2, color, lineWidthPx);
  };
  outline(input.currentMatch, chrome.currentMatch, 2.5);
  outline(input.selectedOp, chrome.selection, 2);
  outlineRange(surface, input, xOf);
  const gap = input.selectedGap;
  if (gap !== undefined && rowBand(input, layout.rowOfTrack[gap.track] ?? -1, band)) {
    const x0 = xOf(gap.startNs);
    const x1 = Math.max(x0 + 3, xOf(gap.endNs));
    surface.strokeRect(x0, band[0]! + 1, x1 - x0, band[1]! - 2, chrome.selection, 2);
  }
  drawFlows(surface, input, xOf);
  surface.popClip();
}

/**
 * Calls `draw(x0, x1)` for each op of `marks` visible in the window, at most one per pixel, with
 * `band` holding its row's screen band. Each row marks the ops it draws: a track's work, or its
 * lane's host waits.
 */
function eachMarkedOp(
  input: FrameInput,
  marks: SearchMarks,
  draw: (x0Px: number, x1Px: number) => void,
): void {
  const { layout, window, gutterPx, widthPx } = input;
  const ops = input.trace.ops.columns();
  const scale = pxPerNs(input);
  const xOf = (ns: number): number => gutterPx + (ns - window.startNs) * scale;
  for (let r = 0; r < layout.rows.length; r++) {
    const row = layout.rows[r]!;
    if ((row.kind !== 'track' && row.kind !== 'sync') || !rowBand(input, r, band)) {
      continue;
    }
    const which = rowOps(layout, r);
    const found = marks.inWindow(row.track, window.startNs, window.endNs);
    let lastPx = -Infinity;
    for (let k = 0; k < found.length; k++) {
      const op = found[k]!;
      if (!rowOpsAccept(which, ops.kind[op]!)) {
        continue;
      }
      const x0 = Math.max(gutterPx - 2, xOf(ops.startNs[op]!));
      const x1 = Math.max(x0 + 2, Math.min(widthPx + 2, xOf(ops.endNs[op]!)));
      if (x1 < gutterPx || x1 - lastPx < 1) {
        continue; // one mark per pixel is enough
      }
      lastPx = x1;
      draw(x0, x1);
    }
  }
}

/** The selected range's outline in its lane (its depth's slice of the track's range row). */
function outlineRange(surface: PaintSurface, input: FrameInput, xOf: (ns: number) => number): void {
  const range = input.selectedRange;
  const ranges = input.trace.ranges.columns();
  if (range === undefined || range < 0 || range >= ranges.count) {
    return;
  }
  const r = input.layout.nvtxRowOfTrack[ranges.track[range]!] ?? -1;
  const row = input.layout.rows[r];
  if (row === undefined || !rowBand(input, r, band)) {
    return;
  }
  const laneHeightPx = row.heightPx / Math.max(1, row.depthCount);
  const x0 = xOf(ranges.startNs[range]!);
  const x1 = Math.max(x0 + 3, xOf(ranges.endNs[range]!));
  const y0 = band[0]! + ranges.depth[range]! * laneHeightPx;
  surface.strokeRect(x0 - 1, y0 + 0.5, x1 - x0 + 2, laneHeightPx - 1, chrome.selection, 2);
}

/** Flows of the selection as arrows: event record → wait, API call → GPU op, graph → node. */
function drawFlows(surface: PaintSurface, input: FrameInput, xOf: (ns: number) => number): void {
  const flows = input.trace.flows.columns();
  const ops = input.trace.ops.columns();
  for (const f of input.selectedFlows) {
    const from = flows.fromOp[f];
    const to = flows.toOp[f];
    if (from === undefined || to === undefined || from >= ops.count || to >= ops.count) {
      continue;
    }
    const y0 = opMidPx(input, from);
    const y1 = opMidPx(input, to);
    if (Number.isNaN(y0) || Number.isNaN(y1)) {
      continue;
    }
    const kind = flows.kind[f];
    // A record completes at its end; a call enqueues at its start. The wait it releases is
    // reached where it was released: the record's end, within the wait (its start when the
    // record had completed before it began), not the wait's start, which may lie far before.
    const recordEndNs = ops.endNs[from]!;
    const x0 = kind === FlowKind.EventRecordToWait ? xOf(recordEndNs) : xOf(ops.startNs[from]!);
    const x1 =
      kind === FlowKind.EventRecordToWait
        ? xOf(Math.min(Math.max(recordEndNs, ops.startNs[to]!), ops.endNs[to]!))
        : xOf(ops.startNs[to]!);
    const color =
      kind === FlowKind.EventRecordToWait
        ? chrome.flowEventWait
        : kind === FlowKind.GraphToNode
          ? chrome.flowGraph
          : chrome.flowApiToGpu;
    surface.arrow(x0, y0, x1, y1, color);
  }
}

/**
 * The area selection: shading on its tracks' rows (with their sync lanes, whose host waits the
 * area counts too) and edges across the whole row area.
 */
export function drawArea(surface: PaintSurface, input: FrameInput): void {
  const area = input.area;
  if (area === undefined) {
    return;
  }
  const { gutterPx, widthPx, axisHeightPx, heightPx, window } = input;
  const scale = pxPerNs(input);
  const x0 = Math.max(gutterPx, gutterPx + (area.startNs - window.startNs) * scale);
  const x1 = Math.min(widthPx, gutterPx + (area.endNs - window.startNs) * scale);
  if (x1 < gutterPx || x0 > widthPx) {
    return;
  }
  surface.pushClip(gutterPx, axisHeightPx, widthPx - gutterPx, heightPx - axisHeightPx);
  if (area.tracks.length === 0) {
    surface.fillRect(x0, axisHeightPx, x1 - x0, heightPx - axisHeightPx, chrome.areaFill);
  } else {
    const { rowOfTrack, syncRowOfTrack } = input.layout;
    for (const track of area.tracks) {
      if (rowBand(input, rowOfTrack[track] ?? -1, band)) {
        surface.fillRect(x0, band[0]!, x1 - x0, band[1]!, chrome.areaFill);
      }
      if (rowBand(input, syncRowOfTrack[track] ?? -1, band)) {
        surface.fillRect(x0, band[0]!, x1 - x0, band[1]!, chrome.areaFill);
      }
    }
  }
  surface.line(x0, axisHeightPx, x0, heightPx, chrome.areaEdge, 1);
  surface.line(x1, axisHeightPx, x1, heightPx, chrome.areaEdge, 1);
  surface.popClip();
}
