import type { OpColumns, Trace } from '@streamscope/trace';
import { trackLabels } from '@streamscope/trace';
import { linkApiCalls } from './api-links.ts';
import type { AnalysisContext } from './context.ts';
import { measure, sortIfNeeded, unionInPlace } from './intervals.ts';
import type { QueueDepth } from './types.ts';

/**
 * One stream's launch queue depth over time, as HTA defines it: +1 when the host calls the API
 * that enqueues an op, −1 when the op starts on the GPU (an op never leaves before it came: its
 * enqueue time is the earlier of the two). A step function: `depth[k]` holds from `timesNs[k]`
 * (ns since the trace origin) until `timesNs[k + 1]`, and the last value from then on; before
 * `timesNs[0]` the depth is 0. Changes at one instant collapse into one point.
 */
export interface QueueDepthSeries {
  readonly track: number;
  readonly timesNs: Float64Array;
  readonly depth: Int32Array;
}

/** Enqueue and start times (each ascending) of the ops on one stream that have an API call. */
interface QueueEvents {
  readonly ups: Float64Array;
  readonly downs: Float64Array;
}

/** From GPU op starts and their API calls' starts (NaN: no call known), position by position. */
function queueEventsOf(startNs: Float64Array, apiStartNs: Float64Array): QueueEvents {
  let linked = 0;
  for (let k = 0; k < startNs.length; k++) {
    if (!Number.isNaN(apiStartNs[k]!)) {
      linked++;
    }
  }
  const ups = new Float64Array(linked);
  const downs = new Float64Array(linked);
  let m = 0;
  for (let k = 0; k < startNs.length; k++) {
    const apiNs = apiStartNs[k]!;
    if (!Number.isNaN(apiNs)) {
      downs[m] = startNs[k]!;
      ups[m] = Math.min(apiNs, startNs[k]!);
      m++;
    }
  }
  return { ups: sortIfNeeded(ups), downs: sortIfNeeded(downs) };
}

function queueEvents(cols: OpColumns, ops: Uint32Array, apiOf: Int32Array): QueueEvents {
  const startNs = new Float64Array(ops.length);
  const apiStartNs = new Float64Array(ops.length);
  for (let k = 0; k < ops.length; k++) {
    const api = apiOf[ops[k]!]!;
    startNs[k] = cols.startNs[ops[k]!]!;
    apiStartNs[k] = api >= 0 ? cols.startNs[api]! : NaN;
  }
  return queueEventsOf(startNs, apiStartNs);
}

/**
 * Walks the depth changes in time order; at equal times an op starts before the next one is
 * counted, so the depth stays minimal, except that an empty queue takes the enqueue first (each
 * op's enqueue is at or before its start, so the k-th enqueue is at or before the k-th start and
 * the depth never goes below 0). Calls `step(timeNs, depth)` after each change.
 */
function sweep(events: QueueEvents, step: (timeNs: number, depth: number) => void): void {
  const { ups, downs } = events;
  let i = 0;
  let j = 0;
  let depth = 0;
  while (j < downs.length) {
    const up = i < ups.length && (ups[i]! < downs[j]! || (depth === 0 && ups[i] === downs[j]));
    const nowNs = up ? ups[i++]! : downs[j++]!;
    depth += up ? 1 : -1;
    step(nowNs, depth);
  }
}

function seriesOf(track: number, events: QueueEvents): QueueDepthSeries {
  const size = events.ups.length + events.downs.length;
  const timesNs = new Float64Array(size);
  const depth = new Int32Array(size);
  let n = 0;
  sweep(events, (nowNs, level) => {
    if (n > 0 && timesNs[n - 1] === nowNs) {
      depth[n - 1] = level;
    } else {
      timesNs[n] = nowNs;
      depth[n] = level;
      n++;
    }
  });
  return { track, timesNs: timesNs.subarray(0, n), depth: depth.subarray(0, n) };
}

/**
 * The launch queue depth of every GPU stream of `trace`, for counter tracks: one series per
 * stream that has ops with a known API call, in track order. Links API calls once for all.
 */
export function queueDepthSeriesByStream(trace: Trace): QueueDepthSeries[] {
  const cols = trace.ops.columns();
  const { apiOf } = linkApiCalls(trace, cols);
  const out: QueueDepthSeries[] = [];
  trace.tracks.forEach((info, track) => {
    if (info.kind !== 'gpu-stream') {
      return;
    }
    const events = queueEvents(cols, trace.ops.trackOrder(track), apiOf);
    if (events.downs.length > 0) {
      out.push(seriesOf(track, events));
    }
  });
  return out;
}

/** The launch queue depth of one stream track (see `QueueDepthSeries`). */
export function queueDepthSeries(trace: Trace, track: number): QueueDepthSeries {
  const cols = trace.ops.columns();
  const { apiOf } = linkApiCalls(trace, cols);
  return seriesOf(track, queueEvents(cols, trace.ops.trackOrder(track), apiOf));
}

/**
 * Per stream, over its ops touching the analysed window: the largest depth, the time-weighted
 * mean depth over the window and the
 * time the queue was full (at `launchQueueCapacity` or more: a launch on it blocks the host
 * until an op starts, HTA's "time blocked on a full queue"); and the time at least one queue
 * was full (the union over streams).
 */
export function queueDepths(ctx: AnalysisContext): { rows: QueueDepth[]; fullNs: number } {
  const { trace, walk } = ctx;
  const { fromNs, toNs } = ctx.window;
  const capacity = ctx.options.launchQueueCapacity;
  const spanNs = toNs - fromNs;
  const rows: QueueDepth[] = [];
  const fullStarts: number[] = [];
  const fullEnds: number[] = [];
  for (const tracks of ctx.tracksOfDevice) {
    for (const track of tracks) {
      const from = walk.trackFrom[track]!;
      const to = walk.trackFrom[track + 1]!;
      const events = queueEventsOf(
        walk.startNs.subarray(from, to),
        walk.apiStartNs.subarray(from, to),
      );
      if (events.downs.length === 0) {
        continue;
      }
      // The sweep of `sweep`, inline: a callback per change costs more than the walk itself.
      const { ups, downs } = events;
      let maxDepth = 0;
      let depthNs = 0;
      let fullNs = 0;
      let lastNs = -Infinity;
      let depth = 0;
      let i = 0;
      let j = 0;
      while (j < downs.length) {
        const up = i < ups.length && (ups[i]! < downs[j]! || (depth === 0 && ups[i] === downs[j]));
        const nowNs = up ? ups[i++]! : downs[j++]!;
        // The depth before this change held over [lastNs, nowNs), clipped to the window.
        const lo = lastNs > fromNs ? lastNs : fromNs;
        const hi = nowNs < toNs ? nowNs : toNs;
        if (hi > lo && depth > 0) {
          depthNs += depth * (hi - lo);
          if (depth >= capacity) {
            fullNs += hi - lo;
            fullStarts.push(lo);
            fullEnds.push(hi);
          }
        }
        depth += up ? 1 : -1;
        if (depth > maxDepth) {
          maxDepth = depth;
        }
        lastNs = nowNs;
      }
      rows.push({
        track,
        label: trackLabels(trace.tracks)[track]!,
        maxDepth,
        meanDepth: spanNs > 0 ? depthNs / spanNs : 0,
        fullNs,
      });
    }
  }
  const fullNs = measure(unionInPlace(Float64Array.from(fullStarts), Float64Array.from(fullEnds)));
  return { rows, fullNs };
}
