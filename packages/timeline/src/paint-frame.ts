import { drawSearchBuckets } from './search-buckets.ts';
import type { AxisTicks } from './axis-ticks.ts';
import { axisTicks } from './axis-ticks.ts';
import { chrome } from './colors.ts';
import { drawMarkedRange, drawTimeCursor, overlayLabelBoxesPx } from './draw-cursor.ts';
import { drawArea, drawAxis, drawMarks } from './draw-overlays.ts';
import type { LabelFitter } from './draw-rows.ts';
import { drawRows } from './draw-rows.ts';
import type { FrameInput, FrameStats } from './frame-input.ts';
import type { PaintSurface } from './paint-surface.ts';
import { drawTrackLanes } from './track-lanes.ts';

// Ticks of the last window: a redraw that does not move the view (selection, search, a live
// append outside it) reuses them instead of formatting labels again.
let lastTicks: AxisTicks | undefined;
let lastTicksKey = [Number.NaN, Number.NaN, Number.NaN];

function ticksFor(startNs: number, endNs: number, widthPx: number): AxisTicks {
  const key = lastTicksKey;
  if (lastTicks === undefined || key[0] !== startNs || key[1] !== endNs || key[2] !== widthPx) {
    lastTicks = axisTicks(startNs, endNs, widthPx);
    lastTicksKey = [startNs, endNs, widthPx];
  }
  return lastTicks;
}

/**
 * One whole frame through a PaintSurface: the scrolling rows, the pinned band over them, the area
 * selection, search marks, selection and flows, then the axis. The cache must already cover the
 * window (FrameCache.update). Counts go into `stats` (reset here).
 */
export function paintFrame(
  surface: PaintSurface,
  input: FrameInput,
  labels: LabelFitter,
  stats: FrameStats,
): void {
  stats.drawnOps = 0;
  stats.rects = 0;
  stats.labels = 0;
  stats.gaps = 0;
  stats.paintedColumnsPx = 0;
  const { layout, widthPx, heightPx, axisHeightPx } = input;
  surface.fillRect(0, 0, widthPx, heightPx, chrome.background);
  const ticks = ticksFor(input.window.startNs, input.window.endNs, widthPx - input.gutterPx);
  const pinnedBottomPx = axisHeightPx + layout.pinnedHeightPx;
  if (pinnedBottomPx < heightPx) {
    drawRows(
      surface,
      input,
      layout.pinnedRowCount,
      layout.rows.length,
      pinnedBottomPx,
      heightPx,
      ticks,
      labels,
      stats,
    );
    if (input.trackLanes !== undefined) {
      const rowCount = layout.rows.length;
      drawTrackLanes(
        surface,
        input,
        input.trackLanes,
        layout.pinnedRowCount,
        rowCount,
        pinnedBottomPx,
        heightPx,
      );
    }
  }
  if (layout.pinnedRowCount > 0) {
    const bottomPx = Math.min(heightPx, pinnedBottomPx);
    drawRows(
      surface,
      input,
      0,
      layout.pinnedRowCount,
      axisHeightPx,
      bottomPx,
      ticks,
      labels,
      stats,
    );
    if (input.trackLanes !== undefined) {
      drawTrackLanes(
        surface,
        input,
        input.trackLanes,
        0,
        layout.pinnedRowCount,
        axisHeightPx,
        bottomPx,
      );
    }
    surface.line(0, bottomPx - 0.5, widthPx, bottomPx - 0.5, chrome.pinnedDivider, 1);
  }
  drawArea(surface, input);
  stats.searchMarks =
    input.searchBuckets !== undefined && input.cache.fromTiles
      ? drawSearchBuckets(surface, input, input.searchBuckets)
      : 0;
  drawMarks(surface, input);
  drawAxis(surface, input, ticks, overlayLabelBoxesPx(input));
  drawMarkedRange(surface, input);
  drawTimeCursor(surface, input);
}
