import type { Trace } from '@streamscope/trace';
import { kindColors } from './colors.ts';
import type { GapIndex } from './gaps.ts';
import { GapCause, colorOfGap } from './gaps.ts';
import { IntervalBuilder } from './interval-buffers.ts';
import type { RowLayout } from './layout.ts';
import type { IntervalSource } from './lod.ts';
import { bucketIntervals, bucketNsFor } from './lod.ts';
import { RangeIndex } from './range-index.ts';
import { rangePalette } from './range-colors.ts';
import { keepRowOps, rowOps } from './sync-lane.ts';
import type { TileSource } from './tile-source.ts';

/** A window of time: ns since the trace origin (Float64, exact). */
export interface TimeWindow {
  readonly startNs: number;
  readonly endNs: number;
}

/**
 * The loaded range behind a window at one level of detail: the window padded by its own span on
 * each side and quantized to 512 buckets (perfetto's BufferedBounds), so panning and small zooms
 * inside it reuse the built buffers.
 */
export function bufferedBounds(window: TimeWindow, bucketNs: number): TimeWindow {
  const spanNs = Math.max(1, window.endNs - window.startNs);
  const quantumNs = bucketNs * 512;
  return {
    startNs: Math.floor((window.startNs - spanNs) / quantumNs) * quantumNs,
    endNs: Math.ceil((window.endNs + spanNs) / quantumNs) * quantumNs,
  };
}

/**
 * Interval buffers for the ops, NVTX ranges and gaps of every row over the buffered bounds of the
 * current window, rebuilt only when the level of detail, the bounds, the trace, the layout or
 * the gaps change. What a frame then costs depends on the rectangles it draws, not on ops.
 */
export class FrameCache {
  readonly intervals = new IntervalBuilder();
  readonly gaps = new IntervalBuilder();
  bucketNs = 0;
  baseNs = 0;
  boundsStartNs = 0;
  boundsEndNs = -1;
  /** Ops (and ranges) the last rebuild read: the superset the culling returned. */
  culledItems = 0;
  private nsPerPx = 1;
  /** Counts rebuilds: buffers of one generation hold the same entries at the same offsets. */
  generation = 0;
  private traceVersion = -1;
  private layout: RowLayout | undefined;
  private gapIndex: GapIndex | undefined;
  private rangeIndex: RangeIndex | undefined;
  private trace: Trace | undefined;
  /** A big stored trace's tiles: stream rows come from them outside the exact range. */
  tileSource: TileSource | undefined;
  private tileVersion = -1;
  /** Whether the last rebuild drew stream rows from tiles. */
  fromTiles = false;

  /** Drops everything (a new trace, or the live trace grew). */
  invalidate(): void {
    this.traceVersion = -1;
  }

  /** Makes the buffers cover `window` at the level of detail for `nsPerPx`; true if rebuilt. */
  update(
    trace: Trace,
    layout: RowLayout,
    window: TimeWindow,
    nsPerPx: number,
    gapIndex: GapIndex | undefined,
  ): boolean {
    const bucketNs = bucketNsFor(nsPerPx);
    const tiles = this.tileSource;
    tiles?.want(window.startNs, window.endNs, nsPerPx);
    if (
      this.tileVersion === (tiles?.version ?? -1) &&
      this.trace === trace &&
      this.traceVersion === trace.version &&
      this.layout === layout &&
      this.gapIndex === gapIndex &&
      this.bucketNs === bucketNs &&
      window.startNs >= this.boundsStartNs &&
      window.endNs <= this.boundsEndNs
    ) {
      return false;
    }
    let bounds = bufferedBounds(window, bucketNs);
    const exact = tiles?.exactRange();
    this.fromTiles =
      tiles !== undefined &&
      (exact === undefined || window.startNs < exact.startNs || window.endNs > exact.endNs);
    if (tiles !== undefined && !this.fromTiles && exact !== undefined) {
      // Ops exist only inside the exact range: leaving it rebuilds (from tiles, until the next
      // window arrives).
      bounds = {
        startNs: Math.max(bounds.startNs, exact.startNs),
        endNs: Math.min(bounds.endNs, exact.endNs),
      };
    }
    this.tileVersion = tiles?.version ?? -1;
    this.nsPerPx = nsPerPx;
    this.trace = trace;
    this.traceVersion = trace.version;
    this.layout = layout;
    this.gapIndex = gapIndex;
    this.bucketNs = bucketNs;
    this.boundsStartNs = bounds.startNs;
    this.boundsEndNs = bounds.endNs;
    this.baseNs = bounds.startNs;
    if (this.rangeIndex?.rangeCount !== trace.ranges.count) {
      this.rangeIndex = new RangeIndex(trace);
    }
    this.rebuild(trace, layout);
    this.generation++;
    return true;
  }

  private rebuild(trace: Trace, layout: RowLayout): void {
    const { intervals, gaps, bucketNs, baseNs, boundsStartNs: fromNs, boundsEndNs: toNs } = this;
    const rows = layout.rows;
    intervals.reset(rows.length);
    gaps.reset(rows.length);
    const ops = trace.ops.columns();
    const opSource: IntervalSource = {
      startNs: ops.startNs,
      endNs: ops.endNs,
      classes: ops.kind,
      classColors: kindColors,
    };
    const ranges = trace.ranges.columns();
    const rangeSource: IntervalSource = {
      startNs: ranges.startNs,
      endNs: ranges.endNs,
      classes: ranges.nameId,
      classColors: rangePalette,
    };
    let culled = 0;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      intervals.beginRow(r);
      gaps.beginRow(r);
      if (row.kind === 'track' || row.kind === 'sync') {
        // A track with a sync lane: its work here, its host waits in the lane (so the gaps
        // below are the stream's idle time, not hidden under a host wait).
        if (this.fromTiles && this.tileSource !== undefined) {
          if (row.kind === 'track') {
            culled += this.tileSource.appendTrack(
              intervals,
              r,
              row.track,
              fromNs,
              toNs,
              baseNs,
              this.nsPerPx,
            );
          }
          intervals.endRow(r);
          gaps.endRow(r);
          continue;
        }
        const inWindow = keepRowOps(
          trace.ops.trackOpsInWindow(row.track, fromNs, toNs),
          ops.kind,
          rowOps(layout, r),
        );
        culled += inWindow.length;
        bucketIntervals(intervals, r, 0, inWindow, opSource, baseNs, bucketNs);
        if (row.kind === 'track' && trace.tracks[row.track]?.kind === 'gpu-stream') {
          this.buildGaps(trace, r, row.track, inWindow, ops.startNs, ops.endNs);
        }
      } else if (row.kind === 'nvtx' && this.rangeIndex !== undefined) {
        for (let depth = 0; depth < row.depthCount; depth++) {
          const inWindow = this.rangeIndex.inWindow(row.track, depth, fromNs, toNs);
          culled += inWindow.length;
          bucketIntervals(intervals, r, depth, inWindow, rangeSource, baseNs, bucketNs);
        }
      }
      intervals.endRow(r);
      gaps.endRow(r);
    }
    this.culledItems = culled;
  }

  /**
   * Gaps of one stream row: from analysis when it named gaps for this track, otherwise every
   * idle stretch between consecutive ops (at least two buckets long) shaded as plain idle.
   */
  private buildGaps(
    trace: Trace,
    r: number,
    track: number,
    inWindow: Uint32Array,
    startNs: Float64Array,
    endNs: Float64Array,
  ): void {
    const { gaps, bucketNs, baseNs } = this;
    const index = this.gapIndex;
    if (index?.hasTrack(track) === true) {
      const table = index.gaps;
      const found = index.inWindow(track, this.boundsStartNs, this.boundsEndNs);
      for (let k = 0; k < found.length; k++) {
        const g = found[k]!;
        const s = table.startNs[g]!;
        const e = table.endNs[g]!;
        if (e - s >= bucketNs) {
          const color = colorOfGap(table.cause[g]!);
          gaps.push(r, 0, Math.fround(s - baseNs), Math.fround(e - baseNs), color, g, 1);
        }
      }
      return;
    }
    if (inWindow.length === 0) {
      return;
    }
    // The op before the window bounds the first gap (the window is a view of trackOrder).
    const order = trace.ops.trackOrder(track);
    const position =
      inWindow.buffer === order.buffer ? (inWindow.byteOffset - order.byteOffset) >>> 2 : 0;
    let prevEndNs = position > 0 ? endNs[order[position - 1]!]! : Number.NaN;
    const idle = colorOfGap(GapCause.Idle);
    for (let k = 0; k < inWindow.length; k++) {
      const i = inWindow[k]!;
      const s = startNs[i]!;
      if (s - prevEndNs >= 2 * bucketNs) {
        gaps.push(r, 0, Math.fround(prevEndNs - baseNs), Math.fround(s - baseNs), idle, -1, 1);
      }
      const e = endNs[i]!;
      if (!(e <= prevEndNs)) {
        prevEndNs = e;
      }
    }
  }
}
