import type { Trace } from '@streamscope/trace';
import { CanvasSurface } from './canvas-surface.ts';
import type { LegendEntry } from './colors.ts';
import { chrome } from './colors.ts';
import type { ExportOptions } from './export-frame.ts';
import {
  documentCanvas,
  exportHeaderHeightPx,
  exportLegend,
  paintExportHeader,
  paintPng,
  ShiftedSurface,
} from './export-frame.ts';
import { LabelFitter } from './draw-rows.ts';
import { fitSpanViewport, gpuActivitySpan } from './gpu-span.ts';
import type { TimeWindow } from './frame-cache.ts';
import { FrameCache } from './frame-cache.ts';
import type { AreaSelection, FrameInput, FrameStats, MarkedRange } from './frame-input.ts';
import { emptyStats, nsOfX, xOfNs } from './frame-input.ts';
import type { GapTable } from './gaps.ts';
import { GapIndex } from './gaps.ts';
import type { TimelineHit } from './hit-test.ts';
import { hitTest } from './hit-test.ts';
import type { LayoutOptions, LayoutRow, RowLayout } from './layout.ts';
import { computeLayout, rowIndexAt, rowScreenTopPx } from './layout.ts';
import { paintFrame } from './paint-frame.ts';
import type { PaintSurface } from './paint-surface.ts';
import type { FrameClock } from './scheduler.ts';
import { RedrawScheduler, animationFrameClock } from './scheduler.ts';
import { SearchMarks } from './search-marks.ts';
import { SvgSurface } from './svg-surface.ts';
import { SyncLaneScan } from './sync-lane.ts';
import type { LaunchSegments, QueueDepthTrack } from './track-lanes.ts';
import { TrackLanes } from './track-lanes.ts';
import type { TileSource } from './tile-source.ts';
import type { Viewport } from './viewport.ts';
import { clampViewport, fitViewport, panViewport, zoomViewport } from './viewport.ts';

export interface TimelineViewOptions {
  /** Frame clock; requestAnimationFrame unless given (tests pass a manual one). */
  readonly clock?: FrameClock;
  /** Device pixels per CSS px; `globalThis.devicePixelRatio` (read on resize) unless given. */
  readonly devicePixelRatio?: number;
  /** Width of the row-label column, CSS px. */
  readonly gutterPx?: number;
  readonly axisHeightPx?: number;
  readonly rowHeights?: Omit<
    LayoutOptions,
    'pinnedTracks' | 'hiddenTracks' | 'collapsedGroups' | 'foldable'
  >;
  /** Headers fold on click (a chevron and group keys in the layout); false unless set. */
  readonly foldableHeaders?: boolean;
  /** Makes the canvas a PNG export is painted on (device px); a new document canvas unless given. */
  readonly exportCanvas?: (widthDevPx: number, heightDevPx: number) => HTMLCanvasElement;
}

/** Scroll state of the rows under the axis and pinned band. */
export interface ScrollInfo {
  readonly scrollTopPx: number;
  /** Height of the scrolling rows. */
  readonly contentHeightPx: number;
  /** Height available to them on screen. */
  readonly visibleHeightPx: number;
}

/** A timeline drawn into one canvas. Create with `createTimelineView`. */
export interface TimelineView {
  setTrace(trace: Trace | undefined): void;
  /**
   * Swaps in another window of the same trace (a tile source's exact ops moved): keeps the
   * viewport, scroll, filters and layout options; drops the selection (indices changed).
   */
  replaceTrace(trace: Trace): void;
  /** Draws stream rows from `source`'s tiles outside its exact range (undefined: from ops). */
  setTileSource(source: TileSource | undefined): void;
  /** The trace grew (a live run): redraw with the new ops, keeping the viewport. */
  invalidate(): void;
  setViewport(viewport: Viewport): void;
  getViewport(): Viewport;
  /** Shows the whole trace. */
  fit(): void;
  /** Shows the GPU's activity, first GPU op to last (the whole trace when it has none). */
  fitGpu(): void;
  /** Zooms by `factor` (> 1 zooms in) keeping the time under `xPx` in place. */
  zoomAt(xPx: number, factor: number): void;
  /** Pans by `dxPx` CSS px (positive moves the view later in time). */
  panByPx(dxPx: number): void;
  timeAtX(xPx: number): number;
  xAtTime(timeNs: number): number;
  /** Width of the row-label column on the left, CSS px. */
  getGutterPx(): number;
  /** Height of the axis band at the top, CSS px. */
  getAxisHeightPx(): number;
  onViewportChange(listener: (viewport: Viewport) => void): () => void;
  setScrollTopPx(scrollTopPx: number): void;
  getScroll(): ScrollInfo;
  getLayout(): RowLayout;
  /** The row at `yPx` (CSS px from the canvas top), or undefined over the axis or below rows. */
  rowAt(yPx: number): LayoutRow | undefined;
  /** Where `row` of the current layout is on screen now: its top, CSS px from the canvas top. */
  rowTopPx(row: LayoutRow): number;
  hitTest(xPx: number, yPx: number): TimelineHit | undefined;
  /** The shaded gap (index into the GapTable of `setGaps`) under a point of a stream's row. */
  gapAt(xPx: number, yPx: number): number | undefined;
  /** Outlines gap `gap` of the GapTable (undefined: none). */
  setSelectedGap(gap: number | undefined): void;
  /** Selects an op: outlined, with its flows drawn as arrows. */
  setSelection(op: number | undefined): void;
  /** Selects an NVTX / CPU-op range: outlined in its lane. */
  setSelectedRange(range: number | undefined): void;
  /** Flow indices drawn for the selection. */
  selectionFlows(): readonly number[];
  setSearchMatches(ops: ArrayLike<number> | undefined, currentOp?: number): void;
  setCurrentMatch(op: number | undefined): void;
  /** Outlines every op of `ops` (a set selected together); undefined clears it. */
  setHighlightedOps(ops: ArrayLike<number> | undefined): void;
  setAreaSelection(area: AreaSelection | undefined): void;
  /** Draws the time cursor at `timeNs` (undefined hides it); never in exports. */
  setCursor(timeNs: number | undefined): void;
  /** Marks a time range with its duration (the `M` key); undefined clears it. */
  setMark(mark: MarkedRange | undefined): void;
  setPinnedTracks(tracks: readonly number[]): void;
  setHiddenTracks(tracks: readonly number[]): void;
  /** Folds these row headers (group keys: group-keys.ts) to one line each. */
  setCollapsedGroups(keys: readonly string[]): void;
  /** Gap causes from analysis; tracks without any keep plain idle shading. */
  setGaps(gaps: GapTable | undefined): void;
  /** Host ranges that launched each stream's ops, and launch queue depths (from analysis). */
  setTrackLaneData(
    launch: readonly LaunchSegments[] | undefined,
    queue: readonly QueueDepthTrack[] | undefined,
    queueCapacity: number,
  ): void;
  /** Shows or hides the 'launch' and 'queue' rows under the streams that have data. */
  setTrackLanesShown(launch: boolean, queue: boolean): void;
  /** The queue depth or the launching range under a point of those rows. */
  trackLaneAt(xPx: number, yPx: number): TrackLaneHit | undefined;
  /** Re-reads the canvas size (or takes the given CSS size) and devicePixelRatio. */
  resize(widthPx?: number, heightPx?: number): void;
  requestRedraw(): void;
  /** Draws now, synchronously, and returns the frame's stats. */
  renderNow(): FrameStats;
  /** True when no frame is scheduled (drawing has settled). */
  isIdle(): boolean;
  stats(): FrameStats;
  onFrame(listener: (stats: FrameStats) => void): () => void;
  /**
   * The view as a picture with a band above it (the title, the window, the legend of what is
   * drawn) over the frame with its axis: a PNG at `pixelRatio` (2 unless given), an SVG in CSS px.
   */
  exportPng(options?: ExportOptions): Promise<Blob>;
  exportSvg(options?: ExportOptions): string;
  dispose(): void;
}

/** What a point of a 'queue' or 'launch' row shows. */
export type TrackLaneHit =
  | {
      readonly kind: 'queue';
      readonly track: number;
      readonly depth: number;
      readonly timeNs: number;
    }
  | { readonly kind: 'launch'; readonly track: number; readonly range: number };

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
  const cache = new FrameCache();
  const gutterPx = options.gutterPx ?? 200;
  const axisHeightPx = options.axisHeightPx ?? 28;
  const viewportListeners = new Set<(viewport: Viewport) => void>();
  const frameListeners = new Set<(stats: FrameStats) => void>();
  const lastStats: FrameStats = emptyStats();

  let trace: Trace | undefined;
  let layout: RowLayout = emptyLayout();
  let layoutTracks = -1;
  let layoutRanges = -1;
  // Which tracks' host waits have a lane, kept up to date as a live trace grows.
  const syncLanes = new SyncLaneScan();
  let viewport: Viewport = { startNs: 0, endNs: 1e6 };
  let scrollTopPx = 0;
  let widthPx = 0;
  let heightPx = 0;
  let pixelRatio = 1;
  let selectedOp: number | undefined;
  let selectedFlows: readonly number[] = [];
  let search: SearchMarks | undefined;
  let currentMatch: number | undefined;
  let highlight: SearchMarks | undefined;
  let area: AreaSelection | undefined;
  let cursorNs: number | undefined;
  let mark: MarkedRange | undefined;
  let selectedRange: number | undefined;
  let selectedGap: number | undefined;
  let pinned: readonly number[] = [];
  let hidden = new Set<number>();
  let collapsedGroups = new Set<string>();
  let gapIndex: GapIndex | undefined;
  let labels = new LabelFitter(() => '');
  const trackLanes = new TrackLanes();
  let tileSource: TileSource | undefined;

  const relayout = (): void => {
    layout =
      trace === undefined
        ? emptyLayout()
        : computeLayout(trace, {
            ...options.rowHeights,
            pinnedTracks: pinned,
            hiddenTracks: hidden,
            collapsedGroups,
            foldable: options.foldableHeaders === true,
            syncLaneTracks: syncLanes.tracks,
            launchLaneTracks: trackLanes.launchTracks(),
            queueTracks: trackLanes.queueTracks(),
          });
    layoutTracks = trace?.tracks.length ?? -1;
    layoutRanges = trace?.ranges.count ?? -1;
    setScrollTop(scrollTopPx);
  };

  // The trace may have grown since the layout was made (a live run): new tracks, NVTX ranges,
  // or a track's first host wait beside its work, which opens its sync lane.
  const layoutUpToDate = (t: Trace): void => {
    const lanesChanged = syncLanes.update(t);
    if (lanesChanged || t.tracks.length !== layoutTracks || t.ranges.count !== layoutRanges) {
      relayout();
    }
  };

  const visibleRowsHeightPx = (): number =>
    Math.max(0, heightPx - axisHeightPx - layout.pinnedHeightPx);

  const setScrollTop = (value: number): void => {
    const maxPx = Math.max(0, layout.contentHeightPx - visibleRowsHeightPx());
    scrollTopPx = Math.min(maxPx, Math.max(0, value));
  };

  const frameInput = (t: Trace, forExport = false): FrameInput => ({
    trace: t,
    layout,
    cache,
    window: viewport,
    widthPx,
    heightPx,
    gutterPx,
    axisHeightPx,
    scrollTopPx,
    trackLanes,
    selectedOp,
    selectedFlows,
    search,
    currentMatch,
    highlight,
    area,
    cursorNs: forExport ? undefined : cursorNs,
    mark,
    selectedRange,
    selectedGap:
      selectedGap === undefined || gapIndex === undefined || selectedGap >= gapIndex.gaps.count
        ? undefined
        : {
            track: gapIndex.gaps.track[selectedGap]!,
            startNs: gapIndex.gaps.startNs[selectedGap]!,
            endNs: gapIndex.gaps.endNs[selectedGap]!,
          },
  });

  const draw = (): void => {
    const t0 = performance.now();
    surface.begin(widthPx, heightPx, pixelRatio);
    if (trace === undefined || widthPx <= gutterPx) {
      surface.fillRect(0, 0, widthPx, heightPx, chrome.background);
      Object.assign(lastStats, emptyStats());
    } else {
      layoutUpToDate(trace);
      const nsPerPx = (viewport.endNs - viewport.startNs) / (widthPx - gutterPx);
      lastStats.rebuilt = cache.update(trace, layout, viewport, nsPerPx, gapIndex);
      paintFrame(surface, frameInput(trace), labels, lastStats);
      lastStats.lod = cache.bucketNs;
      lastStats.culledItems = cache.culledItems;
      lastStats.fromTiles = cache.fromTiles;
    }
    lastStats.frameMs = performance.now() - t0;
    for (const listener of frameListeners) {
      listener({ ...lastStats });
    }
  };

  const scheduler = new RedrawScheduler(options.clock ?? animationFrameClock, draw);

  // An export: the header band, then the frame under it (no time cursor), on its own surface.
  const paintExport = (
    target: PaintSurface,
    title: string | undefined,
    legend: readonly LegendEntry[],
    headerPx: number,
  ): void => {
    paintExportHeader(target, title ?? 'trace', viewport, legend);
    const below = new ShiftedSurface(target, headerPx);
    if (trace === undefined || widthPx <= gutterPx) {
      below.fillRect(0, 0, widthPx, heightPx, chrome.background);
      return;
    }
    layoutUpToDate(trace);
    const nsPerPx = (viewport.endNs - viewport.startNs) / (widthPx - gutterPx);
    cache.update(trace, layout, viewport, nsPerPx, gapIndex);
    paintFrame(below, frameInput(trace, true), labels, emptyStats());
  };

  const onContextRestored = (): void => {
    cache.invalidate();
    scheduler.requestRedraw();
  };
  canvas.addEventListener('contextrestored', onContextRestored);

  const setViewport = (next: Viewport): void => {
    const clamped = clampViewport(next);
    if (clamped.startNs === viewport.startNs && clamped.endNs === viewport.endNs) {
      return;
    }
    viewport = clamped;
    scheduler.requestRedraw();
    for (const listener of viewportListeners) {
      listener(viewport);
    }
  };

  const geometry = (): Pick<FrameInput, 'window' | 'widthPx' | 'gutterPx'> => ({
    window: viewport,
    widthPx,
    gutterPx,
  });

  const view: TimelineView = {
    setTrace(next) {
      trace = next;
      cache.invalidate();
      selectedOp = undefined;
      selectedRange = undefined;
      selectedFlows = [];
      search = undefined;
      currentMatch = undefined;
      highlight = undefined;
      area = undefined;
      gapIndex = undefined;
      labels = new LabelFitter((id) => next?.strings.get(id) ?? '');
      scrollTopPx = 0;
      syncLanes.update(next);
      relayout();
      if (next !== undefined) {
        view.fit();
      }
      scheduler.requestRedraw();
    },
    replaceTrace(next) {
      trace = next;
      cache.invalidate();
      selectedOp = undefined;
      selectedFlows = [];
      search = undefined;
      currentMatch = undefined;
      labels = new LabelFitter((id) => next.strings.get(id));
      syncLanes.update(next);
      relayout();
      scheduler.requestRedraw();
    },
    setTileSource(source) {
      tileSource = source;
      cache.tileSource = source;
      cache.invalidate();
      scheduler.requestRedraw();
    },
    invalidate() {
      cache.invalidate();
      scheduler.requestRedraw();
    },
    setViewport,
    getViewport: () => viewport,
    fit() {
      setViewport(fitViewport(tileSource?.spanNs ?? trace?.spanNs() ?? 0));
    },
    fitGpu() {
      // With tiles the trace here is a window: the GPU's span is not known, so fit it all.
      const span =
        trace === undefined || tileSource !== undefined ? undefined : gpuActivitySpan(trace);
      if (span === undefined) {
        view.fit();
      } else {
        setViewport(fitSpanViewport(span));
      }
    },
    zoomAt(xPx, factor) {
      setViewport(zoomViewport(viewport, nsOfX(geometry(), xPx), factor));
    },
    panByPx(dxPx) {
      setViewport(
        panViewport(
          viewport,
          dxPx * ((viewport.endNs - viewport.startNs) / Math.max(1, widthPx - gutterPx)),
        ),
      );
    },
    timeAtX: (xPx) => nsOfX(geometry(), xPx),
    xAtTime: (timeNs) => xOfNs(geometry(), timeNs),
    getGutterPx: () => gutterPx,
    getAxisHeightPx: () => axisHeightPx,
    onViewportChange(listener) {
      viewportListeners.add(listener);
      return () => viewportListeners.delete(listener);
    },
    setScrollTopPx(value) {
      const before = scrollTopPx;
      setScrollTop(value);
      if (scrollTopPx !== before) {
        scheduler.requestRedraw();
      }
    },
    getScroll: () => ({
      scrollTopPx,
      contentHeightPx: layout.contentHeightPx,
      visibleHeightPx: visibleRowsHeightPx(),
    }),
    getLayout: () => layout,
    rowAt: (yPx) => layout.rows[rowIndexAt(layout, yPx - axisHeightPx, scrollTopPx)],
    rowTopPx: (row) => axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx),
    hitTest(xPx, yPx) {
      if (trace === undefined || yPx < axisHeightPx) {
        return undefined;
      }
      return hitTest({ ...geometry(), trace, layout, axisHeightPx, scrollTopPx }, xPx, yPx);
    },
    gapAt(xPx, yPx) {
      const row = view.rowAt(yPx);
      if (gapIndex === undefined || row?.kind !== 'track' || xPx < gutterPx) {
        return undefined;
      }
      const timeNs = view.timeAtX(xPx);
      const found = gapIndex.inWindow(row.track, timeNs, timeNs);
      const gaps = gapIndex.gaps;
      for (let k = 0; k < found.length; k++) {
        const g = found[k]!;
        if (gaps.startNs[g]! <= timeNs && timeNs <= gaps.endNs[g]!) {
          return g;
        }
      }
      return undefined;
    },
    setSelectedGap(gap) {
      selectedGap = gap;
      scheduler.requestRedraw();
    },
    setSelection(op) {
      selectedOp = op;
      selectedFlows = op === undefined || trace === undefined ? [] : trace.flows.touching(op);
      scheduler.requestRedraw();
    },
    selectionFlows: () => selectedFlows,
    setSelectedRange(range) {
      selectedRange = range;
      scheduler.requestRedraw();
    },
    setSearchMatches(ops, currentOp) {
      search = ops === undefined || trace === undefined ? undefined : new SearchMarks(trace, ops);
      currentMatch = currentOp;
      scheduler.requestRedraw();
    },
    setHighlightedOps(ops) {
      highlight =
        ops === undefined || ops.length === 0 || trace === undefined
          ? undefined
          : new SearchMarks(trace, ops);
      scheduler.requestRedraw();
    },
    setCurrentMatch(op) {
      currentMatch = op;
      scheduler.requestRedraw();
    },
    setAreaSelection(next) {
      area = next;
      scheduler.requestRedraw();
    },
    setCursor(timeNs) {
      if (timeNs !== cursorNs) {
        cursorNs = timeNs;
        scheduler.requestRedraw();
      }
    },
    setMark(next) {
      mark = next;
      scheduler.requestRedraw();
    },
    setPinnedTracks(tracks) {
      pinned = [...tracks];
      relayout();
      scheduler.requestRedraw();
    },
    setHiddenTracks(tracks) {
      hidden = new Set(tracks);
      relayout();
      scheduler.requestRedraw();
    },
    setCollapsedGroups(keys) {
      collapsedGroups = new Set(keys);
      relayout();
      scheduler.requestRedraw();
    },
    setTrackLaneData(launch, queue, queueCapacity) {
      trackLanes.setLaunchSegments(launch);
      trackLanes.setQueueDepth(queue, queueCapacity);
      relayout();
      scheduler.requestRedraw();
    },
    setTrackLanesShown(launch, queue) {
      trackLanes.setShown(launch, queue);
      relayout();
      scheduler.requestRedraw();
    },
    trackLaneAt(xPx, yPx) {
      const row = view.rowAt(yPx);
      if (xPx < gutterPx || (row?.kind !== 'queue' && row?.kind !== 'launch')) {
        return undefined;
      }
      const timeNs = view.timeAtX(xPx);
      if (row.kind === 'queue') {
        const depth = trackLanes.queueDepthAt(row.track, timeNs);
        return { kind: 'queue', track: row.track, depth, timeNs };
      }
      const range = trackLanes.launchRangeAt(row.track, timeNs);
      return range < 0 ? undefined : { kind: 'launch', track: row.track, range };
    },
    setGaps(gaps) {
      gapIndex = gaps === undefined ? undefined : new GapIndex(gaps);
      selectedGap = undefined;
      scheduler.requestRedraw();
    },
    resize(cssWidthPx, cssHeightPx) {
      pixelRatio = options.devicePixelRatio ?? (globalThis.devicePixelRatio || 1);
      widthPx = Math.max(
        0,
        Math.round(cssWidthPx ?? (canvas.clientWidth || canvas.width / pixelRatio)),
      );
      heightPx = Math.max(
        0,
        Math.round(cssHeightPx ?? (canvas.clientHeight || canvas.height / pixelRatio)),
      );
      canvas.width = Math.round(widthPx * pixelRatio);
      canvas.height = Math.round(heightPx * pixelRatio);
      setScrollTop(scrollTopPx);
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
    exportPng(exportOptions = {}) {
      scheduler.flush();
      const legend =
        trace === undefined ? [] : exportLegend(trace, gapIndex, trackLanes.queueTracks().size > 0);
      const headerPx = exportHeaderHeightPx(legend, widthPx);
      return paintPng(
        options.exportCanvas ?? documentCanvas(canvas),
        widthPx,
        heightPx + headerPx,
        exportOptions.pixelRatio ?? 2,
        (target) => paintExport(target, exportOptions.title, legend, headerPx),
      );
    },
    exportSvg(exportOptions = {}) {
      const legend =
        trace === undefined ? [] : exportLegend(trace, gapIndex, trackLanes.queueTracks().size > 0);
      const headerPx = exportHeaderHeightPx(legend, widthPx);
      const svg = new SvgSurface(widthPx, heightPx + headerPx);
      paintExport(svg, exportOptions.title, legend, headerPx);
      return svg.toString();
    },
    dispose() {
      scheduler.dispose();
      canvas.removeEventListener('contextrestored', onContextRestored);
      viewportListeners.clear();
      frameListeners.clear();
      trace = undefined;
    },
  };
  view.resize();
  return view;
}

function emptyLayout(): RowLayout {
  return {
    rows: [],
    pinnedRowCount: 0,
    pinnedHeightPx: 0,
    contentHeightPx: 0,
    rowOfTrack: new Int32Array(0),
    nvtxRowOfTrack: new Int32Array(0),
    syncRowOfTrack: new Int32Array(0),
  };
}

export type { TimeWindow };
