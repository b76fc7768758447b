import type { Trace } from '@streamscope/trace';
import type { FrameCache, TimeWindow } from './frame-cache.ts';
import type { RowLayout } from './layout.ts';
import type { SearchBuckets } from './search-buckets.ts';
import type { SearchMarks } from './search-marks.ts';
import type { TrackLanes } from './track-lanes.ts';

/** An area selection: a time range over some tracks (all tracks when `tracks` is empty). */
export interface AreaSelection {
  readonly startNs: number;
  readonly endNs: number;
  readonly tracks: readonly number[];
}

/** A marked time range (the `M` key), ns since the origin. */
export interface MarkedRange {
  readonly startNs: number;
  readonly endNs: number;
}

/** Everything one frame paints from. Built by the view; drawing never mutates it. */
export interface FrameInput {
  readonly trace: Trace;
  readonly layout: RowLayout;
  readonly cache: FrameCache;
  readonly window: TimeWindow;
  readonly widthPx: number;
  readonly heightPx: number;
  /** Width of the label column on the left. */
  readonly gutterPx: number;
  readonly axisHeightPx: number;
  readonly scrollTopPx: number;
  readonly selectedOp: number | undefined;
  /** Flow indices touching the selected op. */
  readonly selectedFlows: readonly number[];
  readonly search: SearchMarks | undefined;
  /** Where a whole-trace search's matches are (tiled mode), drawn over rows shown from tiles. */
  readonly searchBuckets?: SearchBuckets | undefined;
  readonly currentMatch: number | undefined;
  /** Ops selected together (a multi-selection or a finding's ops), each outlined. */
  readonly highlight?: SearchMarks | undefined;
  readonly area: AreaSelection | undefined;
  /** Time under the pointer (the time cursor), or undefined when the pointer is elsewhere. */
  readonly cursorNs: number | undefined;
  readonly mark: MarkedRange | undefined;
  /** A selected NVTX / CPU-op range, outlined in its lane. */
  readonly selectedRange: number | undefined;
  /** A selected gap, outlined in its stream's row. */
  readonly selectedGap:
    { readonly track: number; readonly startNs: number; readonly endNs: number } | undefined;
  /** Data of the optional launch-range and queue-depth rows, when any are shown. */
  readonly trackLanes?: TrackLanes;
}

/** What the last frame drew (renderer debug stats for tests, the app and the benchmark). */
export interface FrameStats {
  /** Ops represented by the rectangles drawn (a merged bucket counts all of its ops). */
  drawnOps: number;
  /** Rectangles drawn for ops and ranges. */
  rects: number;
  labels: number;
  gaps: number;
  /**
   * Device px columns of pixel strips rasterized: the strip width when painted whole, the
   * columns a pan uncovered, 0 when the view did not move (summed over the row bands).
   */
  paintedColumnsPx: number;
  /** Wall time of the last frame, ms. */
  frameMs: number;
  /** Level of detail: ns per bucket (a power of two). */
  lod: number;
  /** Ops and ranges the culling read at the last rebuild of the buffered bounds. */
  culledItems: number;
  /** Whether this frame rebuilt the buffers (false: drawn from the cache). */
  rebuilt: boolean;
  /** Whether stream rows came from a tile source's tiles (a big stored trace, zoomed out). */
  fromTiles: boolean;
  /** Search-bucket strips drawn over rows shown from tiles (tiled mode). */
  searchMarks: number;
}

export function emptyStats(): FrameStats {
  return {
    drawnOps: 0,
    rects: 0,
    labels: 0,
    gaps: 0,
    paintedColumnsPx: 0,
    frameMs: 0,
    lod: 0,
    culledItems: 0,
    rebuilt: false,
    fromTiles: false,
    searchMarks: 0,
  };
}

/** Time ↔ x mapping of the timeline area (CSS px). */
export function pxPerNs(input: Pick<FrameInput, 'window' | 'widthPx' | 'gutterPx'>): number {
  return (
    Math.max(1, input.widthPx - input.gutterPx) /
    Math.max(1e-9, input.window.endNs - input.window.startNs)
  );
}

export function xOfNs(
  input: Pick<FrameInput, 'window' | 'widthPx' | 'gutterPx'>,
  timeNs: number,
): number {
  return input.gutterPx + (timeNs - input.window.startNs) * pxPerNs(input);
}

export function nsOfX(
  input: Pick<FrameInput, 'window' | 'widthPx' | 'gutterPx'>,
  xPx: number,
): number {
  return input.window.startNs + (xPx - input.gutterPx) / pxPerNs(input);
}
