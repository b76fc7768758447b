import { CanvasSurface } from './canvas-surface.ts';
import { chrome } from './colors.ts';
import { LabelFitter } from './draw-rows.ts';
import type { TimeWindow } from './frame-cache.ts';
import type { FrameStats } from './frame-input.ts';
import { emptyStats, nsOfX } from './frame-input.ts';
import { fitSpanViewport, gpuActivitySpan } from './gpu-span.ts';
import { paintFrame } from './paint-frame.ts';
import { RedrawScheduler, animationFrameClock } from './scheduler.ts';
import type { TimelineView, TimelineViewOptions } from './timeline-view-api.ts';
import { exportMethods } from './view-export.ts';
import { laneMethods } from './view-lanes.ts';
import { markMethods } from './view-marks.ts';
import { pickMethods } from './view-picking.ts';
import type { ViewState } from './view-state.ts';
import {
  createViewState,
  frameGeometry,
  frameInput,
  layoutUpToDate,
  relayout,
  setScrollTop,
  visibleRowsHeightPx,
} from './view-state.ts';
import type { Viewport } from './viewport.ts';
import { clampViewport, fitViewport, panWithinTrace, zoomViewport } from './viewport.ts';

/** Creates a view that owns `canvas`'s pixels. Call `resize()` when the element's size changes. */
export function createTimelineView(
  canvas: HTMLCanvasElement,
  options: TimelineViewOptions = {},
): TimelineView {
  const ctx = canvas.getContext('2d');
  if (ctx === null) {
    throw new Error('the timeline needs a 2D canvas context');
  }
  const surface = new CanvasSurface(ctx);
  const s: ViewState = createViewState(options);
  const viewportListeners = new Set<(viewport: Viewport) => void>();
  const frameListeners = new Set<(stats: FrameStats) => void>();
  const lastStats: FrameStats = emptyStats();

  const draw = (): void => {
    const t0 = performance.now();
    surface.begin(s.widthPx, s.heightPx, s.pixelRatio);
    if (s.trace === undefined || s.widthPx <= s.gutterPx) {
      surface.fillRect(0, 0, s.widthPx, s.heightPx, chrome.background);
      Object.assign(lastStats, emptyStats());
    } else {
      layoutUpToDate(s, s.trace);
      const nsPerPx = (s.viewport.endNs - s.viewport.startNs) / (s.widthPx - s.gutterPx);
      lastStats.rebuilt = s.cache.update(s.trace, s.layout, s.viewport, nsPerPx, s.gapIndex);
      paintFrame(surface, frameInput(s, s.trace), s.labels, lastStats);
      lastStats.lod = s.cache.bucketNs;
      lastStats.culledItems = s.cache.culledItems;
      lastStats.fromTiles = s.cache.fromTiles;
    }
    lastStats.frameMs = performance.now() - t0;
    for (const listener of frameListeners) {
      listener({ ...lastStats });
    }
  };

  const scheduler = new RedrawScheduler(options.clock ?? animationFrameClock, draw);
  s.scheduler = scheduler;

  const onContextRestored = (): void => {
    s.cache.invalidate();
    scheduler.requestRedraw();
  };
  canvas.addEventListener('contextrestored', onContextRestored);

  const setViewport = (next: Viewport): void => {
    const clamped = clampViewport(next);
    if (clamped.startNs === s.viewport.startNs && clamped.endNs === s.viewport.endNs) {
      return;
    }
    s.viewport = clamped;
    scheduler.requestRedraw();
    for (const listener of viewportListeners) {
      listener(s.viewport);
    }
  };

  const view: TimelineView = {
    ...markMethods(s),
    ...laneMethods(s),
    ...pickMethods(s),
    ...exportMethods(s, canvas),
    setTrace(next) {
      s.trace = next;
      s.cache.invalidate();
      s.selectedOp = undefined;
      s.selectedRange = undefined;
      s.selectedFlows = [];
      s.search = undefined;
      s.currentMatch = undefined;
      s.highlight = undefined;
      s.area = undefined;
      s.gapIndex = undefined;
      s.labels = new LabelFitter((id) => next?.strings.get(id) ?? '');
      s.scrollTopPx = 0;
      s.syncLanes.update(next);
      relayout(s);
      if (next !== undefined) {
        view.fit();
      }
      scheduler.requestRedraw();
    },
    replaceTrace(next) {
      s.trace = next;
      s.cache.invalidate();
      s.selectedOp = undefined;
      s.selectedFlows = [];
      s.search = undefined;
      s.currentMatch = undefined;
      s.labels = new LabelFitter((id) => next.strings.get(id));
      s.syncLanes.update(next);
      relayout(s);
      scheduler.requestRedraw();
    },
    setTileSource(source) {
      s.tileSource = source;
      s.cache.tileSource = source;
      s.cache.invalidate();
      scheduler.requestRedraw();
    },
    invalidate() {
      s.cache.invalidate();
      scheduler.requestRedraw();
    },
    setViewport,
    getViewport: () => s.viewport,
    fit() {
      setViewport(fitViewport(s.tileSource?.spanNs ?? s.trace?.spanNs() ?? 0));
    },
    fitGpu() {
      // With tiles the trace here is a window: the GPU's span is not known, so fit it all.
      const span =
        s.trace === undefined || s.tileSource !== undefined ? undefined : gpuActivitySpan(s.trace);
      if (span === undefined) {
        view.fit();
      } else {
        setViewport(fitSpanViewport(span));
      }
    },
    zoomAt(xPx, factor) {
      setViewport(zoomViewport(s.viewport, nsOfX(frameGeometry(s), xPx), factor));
    },
    panByPx(dxPx) {
      const nsPerPx = (s.viewport.endNs - s.viewport.startNs) / Math.max(1, s.widthPx - s.gutterPx);
      const spanNs = s.tileSource?.spanNs ?? s.trace?.spanNs() ?? 0;
      setViewport(panWithinTrace(s.viewport, dxPx * nsPerPx, spanNs));
    },
    getGutterPx: () => s.gutterPx,
    getAxisHeightPx: () => s.axisHeightPx,
    onViewportChange(listener) {
      viewportListeners.add(listener);
      return () => viewportListeners.delete(listener);
    },
    setScrollTopPx(value) {
      const before = s.scrollTopPx;
      setScrollTop(s, value);
      if (s.scrollTopPx !== before) {
        scheduler.requestRedraw();
      }
    },
    getScroll: () => ({
      scrollTopPx: s.scrollTopPx,
      contentHeightPx: s.layout.contentHeightPx,
      visibleHeightPx: visibleRowsHeightPx(s),
    }),
    getLayout: () => s.layout,
    resize(cssWidthPx, cssHeightPx) {
      s.pixelRatio = options.devicePixelRatio ?? (globalThis.devicePixelRatio || 1);
      s.widthPx = Math.max(
        0,
        Math.round(cssWidthPx ?? (canvas.clientWidth || canvas.width / s.pixelRatio)),
      );
      s.heightPx = Math.max(
        0,
        Math.round(cssHeightPx ?? (canvas.clientHeight || canvas.height / s.pixelRatio)),
      );
      canvas.width = Math.round(s.widthPx * s.pixelRatio);
      canvas.height = Math.round(s.heightPx * s.pixelRatio);
      setScrollTop(s, s.scrollTopPx);
      scheduler.requestRedraw();
    },
    requestRedraw: () => scheduler.requestRedraw(),
    renderNow() {
      scheduler.flush();
      return { ...lastStats };
    },
    isIdle: () => !scheduler.isPending,
    stats: () => ({ ...lastStats }),
    onFrame(listener) {
      frameListeners.add(listener);
      return () => frameListeners.delete(listener);
    },
    dispose() {
      scheduler.dispose();
      canvas.removeEventListener('contextrestored', onContextRestored);
      viewportListeners.clear();
      frameListeners.clear();
      s.trace = undefined;
    },
  };
  view.resize();
  return view;
}

export type { TimeWindow };
