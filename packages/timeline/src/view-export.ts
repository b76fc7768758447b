import type { LegendEntry } from './colors.ts';
import { chrome } from './colors.ts';
import {
  documentCanvas,
  exportHeaderHeightPx,
  exportLegend,
  paintExportHeader,
  paintPng,
  ShiftedSurface,
} from './export-frame.ts';
import { emptyStats } from './frame-input.ts';
import { paintFrame } from './paint-frame.ts';
import type { PaintSurface } from './paint-surface.ts';
import { SvgSurface } from './svg-surface.ts';
import type { TimelineView } from './timeline-view-api.ts';
import type { ViewState } from './view-state.ts';
import { frameInput, layoutUpToDate } from './view-state.ts';

// An export: the header band, then the frame under it (no time cursor), on its own surface.
function paintExport(
  s: ViewState,
  target: PaintSurface,
  title: string | undefined,
  legend: readonly LegendEntry[],
  headerPx: number,
): void {
  paintExportHeader(target, title ?? 'trace', s.viewport, legend);
  const below = new ShiftedSurface(target, headerPx);
  if (s.trace === undefined || s.widthPx <= s.gutterPx) {
    below.fillRect(0, 0, s.widthPx, s.heightPx, chrome.background);
    return;
  }
  layoutUpToDate(s, s.trace);
  const nsPerPx = (s.viewport.endNs - s.viewport.startNs) / (s.widthPx - s.gutterPx);
  s.cache.update(s.trace, s.layout, s.viewport, nsPerPx, s.gapIndex);
  paintFrame(below, frameInput(s, s.trace, true), s.labels, emptyStats());
}

function legendOf(s: ViewState): readonly LegendEntry[] {
  return s.trace === undefined
    ? []
    : exportLegend(s.trace, s.gapIndex, s.trackLanes.queueTracks().size > 0);
}

/** The view as a PNG or an SVG: a header band (title, window, legend) over the frame. */
export function exportMethods(
  s: ViewState,
  canvas: HTMLCanvasElement,
): Pick<TimelineView, 'exportPng' | 'exportSvg'> {
  return {
    exportPng(exportOptions = {}) {
      s.scheduler?.flush();
      const legend = legendOf(s);
      const headerPx = exportHeaderHeightPx(legend, s.widthPx);
      return paintPng(
        s.options.exportCanvas ?? documentCanvas(canvas),
        s.widthPx,
        s.heightPx + headerPx,
        exportOptions.pixelRatio ?? 2,
        (target) => paintExport(s, target, exportOptions.title, legend, headerPx),
      );
    },
    exportSvg(exportOptions = {}) {
      const legend = legendOf(s);
      const headerPx = exportHeaderHeightPx(legend, s.widthPx);
      const svg = new SvgSurface(s.widthPx, s.heightPx + headerPx);
      paintExport(s, svg, exportOptions.title, legend, headerPx);
      return svg.toString();
    },
  };
}
