import type { LegendEntry } from './colors.ts';
import { chrome, cssColor, rgba, textColorOn } from './colors.ts';
import { ellipsize } from './draw-rows.ts';
import type { FrameInput } from './frame-input.ts';
import { pxPerNs } from './frame-input.ts';
import { rowScreenTopPx } from './layout.ts';
import type { PaintSurface } from './paint-surface.ts';
import { rangePalette } from './range-colors.ts';

/** A stream's launch queue depth as a step function (analysis' `QueueDepthSeries`). */
export interface QueueDepthTrack {
  readonly track: number;
  /** ns since the trace origin, ascending; `depth[k]` holds from `timesNs[k]` to the next. */
  readonly timesNs: Float64Array;
  readonly depth: Int32Array;
}

/** Host ranges projected onto a stream (analysis' `LaunchRangeSegments`), sorted by start. */
export interface LaunchSegments {
  readonly track: number;
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  /** Index into `trace.ranges` (its name labels the segment). */
  readonly range: Uint32Array;
}

/** Fill of the queue-depth area and the capacity line over it. */
const queueFill = rgba(0, 114, 178, 150);
const capacityLine = chrome.currentMatch;

/** The export legend's entry for the queue-depth area, present when its rows are shown. */
export const queueDepthLegend: LegendEntry = {
  id: 'queue-depth',
  label: 'Launch queue depth (log scale)',
  color: queueFill,
  css: cssColor(queueFill),
  kinds: [],
};

/**
 * The optional lanes under each stream (issue #21 and #18): which host range launched its ops,
 * and its launch queue depth over time with the queue's capacity. Each shows only when turned
 * on and for the streams that have data.
 */
export class TrackLanes {
  private launch = new Map<number, LaunchSegments>();
  private queue = new Map<number, QueueDepthTrack>();
  private launchOn = false;
  private queueOn = false;
  /** Launches beyond this many block the host (analysis' `launchQueueCapacity`). */
  capacity = 1024;

  setShown(launchOn: boolean, queueOn: boolean): void {
    this.launchOn = launchOn;
    this.queueOn = queueOn;
  }

  setLaunchSegments(list: readonly LaunchSegments[] | undefined): void {
    this.launch = new Map((list ?? []).map((s) => [s.track, s]));
  }

  setQueueDepth(list: readonly QueueDepthTrack[] | undefined, capacity: number): void {
    this.queue = new Map((list ?? []).map((s) => [s.track, s]));
    this.capacity = Math.max(1, capacity);
  }

  /** Streams that get a 'launch' row now. */
  launchTracks(): ReadonlySet<number> {
    return new Set(this.launchOn ? this.launch.keys() : []);
  }

  /** Streams that get a 'queue' row now. */
  queueTracks(): ReadonlySet<number> {
    return new Set(this.queueOn ? this.queue.keys() : []);
  }

  launchOf(track: number): LaunchSegments | undefined {
    return this.launch.get(track);
  }

  queueOf(track: number): QueueDepthTrack | undefined {
    return this.queue.get(track);
  }

  /** The queue depth of `track` at `timeNs` (0 before its first change or without data). */
  queueDepthAt(track: number, timeNs: number): number {
    const series = this.queue.get(track);
    if (series === undefined) {
      return 0;
    }
    const k = lastAtOrBefore(series.timesNs, timeNs);
    return k < 0 ? 0 : series.depth[k]!;
  }

  /** The range (index into `trace.ranges`) whose segment covers `timeNs` on `track`, or -1. */
  launchRangeAt(track: number, timeNs: number): number {
    const segments = this.launch.get(track);
    if (segments === undefined) {
      return -1;
    }
    for (let k = lastAtOrBefore(segments.startNs, timeNs); k >= 0; k--) {
      if (segments.endNs[k]! >= timeNs) {
        return segments.range[k]!;
      }
    }
    return -1;
  }
}

/** Index of the last value ≤ `valueNs` in ascending `values`, or -1. */
function lastAtOrBefore(values: Float64Array, valueNs: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= valueNs) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo - 1;
}

/**
 * Height of `depth` in a queue track `heightPx` tall: log scale with the capacity at the top, so
 * the usual few launches in flight show and a full queue reaches the capacity line.
 */
export function queueBarHeightPx(depth: number, capacity: number, heightPx: number): number {
  const innerPx = heightPx - 4;
  return depth <= 0 ? 0 : (innerPx * Math.log2(1 + depth)) / Math.log2(1 + capacity);
}

// Per device-independent column, the deepest queue in it; grown geometrically, reused.
let columns = new Int32Array(1024);

/**
 * Paints the 'launch' and 'queue' rows in [from, to) whose band meets [clipTopPx, clipBottomPx],
 * over the timeline area (the gutter keeps their labels).
 */
export function drawTrackLanes(
  surface: PaintSurface,
  input: FrameInput,
  lanes: TrackLanes,
  from: number,
  to: number,
  clipTopPx: number,
  clipBottomPx: number,
): void {
  const { layout, gutterPx, widthPx, axisHeightPx, scrollTopPx, window } = input;
  const scale = pxPerNs(input);
  surface.pushClip(gutterPx, clipTopPx, widthPx - gutterPx, clipBottomPx - clipTopPx);
  for (let r = from; r < to; r++) {
    const row = layout.rows[r]!;
    if (row.kind !== 'launch' && row.kind !== 'queue') {
      continue;
    }
    const topPx = axisHeightPx + rowScreenTopPx(layout, row, scrollTopPx);
    if (topPx >= clipBottomPx || topPx + row.heightPx <= clipTopPx) {
      continue;
    }
    if (row.kind === 'launch') {
      const segments = lanes.launchOf(row.track);
      if (segments !== undefined) {
        drawLaunch(surface, input, segments, topPx, row.heightPx, scale);
      }
      continue;
    }
    const series = lanes.queueOf(row.track);
    if (series === undefined) {
      continue;
    }
    const bottomPx = topPx + row.heightPx - 1;
    const widthCols = Math.max(1, Math.ceil(widthPx - gutterPx));
    if (columns.length < widthCols) {
      columns = new Int32Array(Math.max(widthCols, 2 * columns.length));
    }
    // Walk the columns and the steps together: each column keeps the deepest step in it.
    const { timesNs, depth } = series;
    let j = lastAtOrBefore(timesNs, window.startNs);
    for (let c = 0; c < widthCols; c++) {
      const endNs = window.startNs + (c + 1) / scale;
      let deepest = j >= 0 ? depth[j]! : 0;
      while (j + 1 < timesNs.length && timesNs[j + 1]! < endNs) {
        j++;
        deepest = Math.max(deepest, depth[j]!);
      }
      columns[c] = deepest;
    }
    for (let c = 0; c < widthCols;) {
      const value = columns[c]!;
      let end = c + 1;
      while (end < widthCols && columns[end] === value) {
        end++;
      }
      const barPx = queueBarHeightPx(value, lanes.capacity, row.heightPx);
      if (barPx > 0) {
        surface.fillRect(gutterPx + c, bottomPx - barPx, end - c, barPx, queueFill);
      }
      c = end;
    }
    const capPx = bottomPx - queueBarHeightPx(lanes.capacity, lanes.capacity, row.heightPx);
    surface.line(gutterPx, capPx, widthPx, capPx, capacityLine, 1);
    surface.text(
      `capacity ${lanes.capacity}`,
      widthPx - 4,
      capPx + 6,
      chrome.mutedText,
      'axis',
      'right',
    );
  }
  surface.popClip();
}

function drawLaunch(
  surface: PaintSurface,
  input: FrameInput,
  segments: LaunchSegments,
  topPx: number,
  heightPx: number,
  scale: number,
): void {
  const { gutterPx, widthPx, window, trace } = input;
  const ranges = trace.ranges.columns();
  for (let k = 0; k < segments.startNs.length; k++) {
    const startNs = segments.startNs[k]!;
    const endNs = segments.endNs[k]!;
    if (endNs < window.startNs || startNs > window.endNs) {
      continue;
    }
    const x0 = Math.max(gutterPx - 2, gutterPx + (startNs - window.startNs) * scale);
    const x1 = Math.min(widthPx + 2, Math.max(x0 + 1, gutterPx + (endNs - window.startNs) * scale));
    const nameId = ranges.nameId[segments.range[k]!] ?? 0;
    const color = rangePalette[nameId % rangePalette.length]!;
    surface.fillRect(x0, topPx + 1, x1 - x0, heightPx - 2, color);
    if (x1 - x0 >= 24) {
      const name = ellipsize(trace.strings.get(nameId), x1 - x0 - 6, 'label');
      surface.text(
        name,
        x0 + 3,
        topPx + heightPx / 2,
        textColorOn(color),
        'label',
        'left',
        x1 - x0 - 4,
      );
    }
  }
}
