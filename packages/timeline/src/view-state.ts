import type { Trace } from '@streamscope/trace';
import { LabelFitter } from './draw-rows.ts';
import { FrameCache } from './frame-cache.ts';
import type { AreaSelection, FrameInput, MarkedRange } from './frame-input.ts';
import type { GapIndex } from './gaps.ts';
import type { RowLayout } from './layout.ts';
import { computeLayout } from './layout.ts';
import type { RangeLanes } from './range-lanes.ts';
import type { RedrawScheduler } from './scheduler.ts';
import type { SearchBuckets } from './search-buckets.ts';
import type { SearchMarks } from './search-marks.ts';
import { SyncLaneScan } from './sync-lane.ts';
import type { TimelineViewOptions } from './timeline-view-api.ts';
import type { TileSource } from './tile-source.ts';
import { TrackLanes } from './track-lanes.ts';
import type { Viewport } from './viewport.ts';

/**
 * Everything a timeline view holds between frames. One object shared by the files that each
 * implement a group of the view's methods (marks, lanes, export), so none of them owns a copy.
 */
export interface ViewState {
  readonly options: TimelineViewOptions;
  readonly cache: FrameCache;
  readonly gutterPx: number;
  readonly axisHeightPx: number;
  trace: Trace | undefined;
  layout: RowLayout;
  layoutTracks: number;
  layoutRanges: number;
  /** The tile source's range lanes the layout was made with. */
  layoutRangeLanes: RangeLanes | undefined;
  /** Which tracks' host waits have a lane, kept up to date as a live trace grows. */
  readonly syncLanes: SyncLaneScan;
  readonly trackLanes: TrackLanes;
  viewport: Viewport;
  scrollTopPx: number;
  widthPx: number;
  heightPx: number;
  pixelRatio: number;
  selectedOp: number | undefined;
  selectedFlows: readonly number[];
  search: SearchMarks | undefined;
  searchBuckets: SearchBuckets | undefined;
  currentMatch: number | undefined;
  highlight: SearchMarks | undefined;
  area: AreaSelection | undefined;
  cursorNs: number | undefined;
  mark: MarkedRange | undefined;
  selectedRange: number | undefined;
  selectedGap: number | undefined;
  pinned: readonly number[];
  hidden: Set<number>;
  collapsedGroups: Set<string>;
  gapIndex: GapIndex | undefined;
  labels: LabelFitter;
  tileSource: TileSource | undefined;
  /** Set once the view's scheduler exists; every state change that shows asks it for a frame. */
  scheduler: RedrawScheduler | undefined;
}

export function createViewState(options: TimelineViewOptions): ViewState {
  return {
    options,
    cache: new FrameCache(),
    gutterPx: options.gutterPx ?? 200,
    axisHeightPx: options.axisHeightPx ?? 28,
    trace: undefined,
    layout: emptyLayout(),
    layoutTracks: -1,
    layoutRanges: -1,
    layoutRangeLanes: undefined,
    syncLanes: new SyncLaneScan(),
    trackLanes: new TrackLanes(),
    viewport: { startNs: 0, endNs: 1e6 },
    scrollTopPx: 0,
    widthPx: 0,
    heightPx: 0,
    pixelRatio: 1,
    selectedOp: undefined,
    selectedFlows: [],
    search: undefined,
    searchBuckets: undefined,
    currentMatch: undefined,
    highlight: undefined,
    area: undefined,
    cursorNs: undefined,
    mark: undefined,
    selectedRange: undefined,
    selectedGap: undefined,
    pinned: [],
    hidden: new Set(),
    collapsedGroups: new Set(),
    gapIndex: undefined,
    labels: new LabelFitter(() => ''),
    tileSource: undefined,
    scheduler: undefined,
  };
}

export function requestRedraw(s: ViewState): void {
  s.scheduler?.requestRedraw();
}

export function visibleRowsHeightPx(s: ViewState): number {
  return Math.max(0, s.heightPx - s.axisHeightPx - s.layout.pinnedHeightPx);
}

export function setScrollTop(s: ViewState, value: number): void {
  const maxPx = Math.max(0, s.layout.contentHeightPx - visibleRowsHeightPx(s));
  s.scrollTopPx = Math.min(maxPx, Math.max(0, value));
}

export function relayout(s: ViewState): void {
  s.layout =
    s.trace === undefined
      ? emptyLayout()
      : computeLayout(s.trace, {
          ...s.options.rowHeights,
          pinnedTracks: s.pinned,
          hiddenTracks: s.hidden,
          collapsedGroups: s.collapsedGroups,
          foldable: s.options.foldableHeaders === true,
          syncLaneTracks: s.syncLanes.tracks,
          launchLaneTracks: s.trackLanes.launchTracks(),
          queueTracks: s.trackLanes.queueTracks(),
          ...(s.tileSource?.rangeLanes === undefined
            ? {}
            : { rangeLanes: s.tileSource.rangeLanes }),
        });
  s.layoutRangeLanes = s.tileSource?.rangeLanes;
  s.layoutTracks = s.trace?.tracks.length ?? -1;
  s.layoutRanges = s.trace?.ranges.count ?? -1;
  setScrollTop(s, s.scrollTopPx);
}

// The trace may have grown since the layout was made (a live run): new tracks, NVTX ranges,
// or a track's first host wait beside its work, which opens its sync lane.
export function layoutUpToDate(s: ViewState, t: Trace): void {
  const lanesChanged = s.syncLanes.update(t);
  if (
    lanesChanged ||
    t.tracks.length !== s.layoutTracks ||
    t.ranges.count !== s.layoutRanges ||
    s.tileSource?.rangeLanes !== s.layoutRangeLanes
  ) {
    relayout(s);
  }
}

export function frameInput(s: ViewState, t: Trace, forExport = false): FrameInput {
  const gaps = s.gapIndex?.gaps;
  const gap = s.selectedGap;
  return {
    trace: t,
    layout: s.layout,
    cache: s.cache,
    window: s.viewport,
    widthPx: s.widthPx,
    heightPx: s.heightPx,
    gutterPx: s.gutterPx,
    axisHeightPx: s.axisHeightPx,
    scrollTopPx: s.scrollTopPx,
    trackLanes: s.trackLanes,
    selectedOp: s.selectedOp,
    selectedFlows: s.selectedFlows,
    search: s.search,
    searchBuckets: s.searchBuckets,
    currentMatch: s.currentMatch,
    highlight: s.highlight,
    area: s.area,
    cursorNs: forExport ? undefined : s.cursorNs,
    mark: s.mark,
    selectedRange: s.selectedRange,
    selectedGap:
      gap === undefined || gaps === undefined || gap >= gaps.count
        ? undefined
        : { track: gaps.track[gap]!, startNs: gaps.startNs[gap]!, endNs: gaps.endNs[gap]! },
  };
}

export function frameGeometry(s: ViewState): Pick<FrameInput, 'window' | 'widthPx' | 'gutterPx'> {
  return { window: s.viewport, widthPx: s.widthPx, gutterPx: s.gutterPx };
}

export function emptyLayout(): RowLayout {
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
