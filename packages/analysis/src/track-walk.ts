import type { OpColumns, Trace } from '@streamscope/trace';
import type { TimeWindow } from './types.ts';

/**
 * The ops of every GPU stream (touching the window), gathered once into track-major, start-sorted
 * columns. Walking a track through `trackOrder` reads the op columns out of order (a million ops
 * from 32 interleaved tracks cost ~35 ms per walk); the analyses walk streams several times, so
 * they read these contiguous copies instead. Track t's ops are positions
 * [trackFrom[t], trackFrom[t + 1]).
 */
export interface TrackWalk {
  readonly trackFrom: Int32Array;
  readonly op: Uint32Array;
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  readonly kind: Uint8Array;
  /** The enqueuing API call's start and end, NaN where none is known. */
  readonly apiStartNs: Float64Array;
  readonly apiEndNs: Float64Array;
}

export function gatherTrackWalk(
  trace: Trace,
  cols: OpColumns,
  apiOf: Int32Array,
  window: TimeWindow,
): TrackWalk {
  const trackCount = trace.tracks.length;
  const orders: Uint32Array[] = [];
  const trackFrom = new Int32Array(trackCount + 1);
  let total = 0;
  for (let t = 0; t < trackCount; t++) {
    trackFrom[t] = total;
    const order =
      trace.tracks[t]!.kind === 'gpu-stream'
        ? trace.ops.trackOpsInWindow(t, window.fromNs, window.toNs)
        : new Uint32Array(0);
    orders.push(order);
    total += order.length;
  }
  trackFrom[trackCount] = total;
  const op = new Uint32Array(total);
  const startNs = new Float64Array(total);
  const endNs = new Float64Array(total);
  const kind = new Uint8Array(total);
  const apiStartNs = new Float64Array(total);
  const apiEndNs = new Float64Array(total);
  let at = 0;
  for (const order of orders) {
    for (let k = 0; k < order.length; k++, at++) {
      const i = order[k]!;
      op[at] = i;
      startNs[at] = cols.startNs[i]!;
      endNs[at] = cols.endNs[i]!;
      kind[at] = cols.kind[i]!;
      const api = apiOf[i]!;
      apiStartNs[at] = api >= 0 ? cols.startNs[api]! : NaN;
      apiEndNs[at] = api >= 0 ? cols.endNs[api]! : NaN;
    }
  }
  return { trackFrom, op, startNs, endNs, kind, apiStartNs, apiEndNs };
}

/** First position in track `t`'s segment whose start is at or after `valueNs`. */
export function walkLowerBound(walk: TrackWalk, t: number, valueNs: number): number {
  let lo = walk.trackFrom[t]!;
  let hi = walk.trackFrom[t + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (walk.startNs[mid]! < valueNs) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
