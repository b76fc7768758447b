import type { Trace } from '@streamscope/trace';
import type { ExportOptions } from './export-frame.ts';
import type { AreaSelection, FrameStats, MarkedRange } from './frame-input.ts';
import type { GapTable } from './gaps.ts';
import type { TimelineHit } from './hit-test.ts';
import type { LayoutOptions, LayoutRow, RowLayout } from './layout.ts';
import type { FrameClock } from './scheduler.ts';
import type { SearchBuckets } from './search-buckets.ts';
import type { LaunchSegments, QueueDepthTrack } from './track-lanes.ts';
import type { TileSource } from './tile-source.ts';
import type { Viewport } from './viewport.ts';

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
  /** Tiled mode: where a whole-trace search's matches are, marked over rows drawn from tiles. */
  setSearchBuckets(marks: SearchBuckets | undefined): void;
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
