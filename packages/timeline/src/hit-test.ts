import type { Trace } from '@streamscope/trace';
import type { FrameInput } from './frame-input.ts';
import { nsOfX, pxPerNs } from './frame-input.ts';
import { rowIndexAt } from './layout.ts';
import { RowOps, rowOps, rowOpsAccept } from './sync-lane.ts';

/** What is under a point of the canvas. */
export type TimelineHit =
  | { readonly kind: 'op'; readonly op: number; readonly track: number }
  | { readonly kind: 'range'; readonly range: number; readonly track: number }
  | { readonly kind: 'row'; readonly track: number }
  | { readonly kind: 'group'; readonly row: number };

/** How far (px) a pointer may miss a thin op and still hit it. */
export const hitSlopPx = 3;

type HitInput = Pick<
  FrameInput,
  'trace' | 'layout' | 'window' | 'widthPx' | 'gutterPx' | 'axisHeightPx' | 'scrollTopPx'
>;

/**
 * The op, range, row or group header under (xPx, yPx) in CSS px of the canvas. Within a row it
 * prefers the op that contains the time, else the nearest one within `hitSlopPx`.
 */
export function hitTest(input: HitInput, xPx: number, yPx: number): TimelineHit | undefined {
  const { layout, trace } = input;
  const r = rowIndexAt(layout, yPx - input.axisHeightPx, input.scrollTopPx);
  const row = layout.rows[r];
  if (row === undefined) {
    return undefined;
  }
  if (row.kind === 'group') {
    return { kind: 'group', row: r };
  }
  if (xPx < input.gutterPx || row.kind === 'launch' || row.kind === 'queue') {
    // The optional lanes under a stream draw no ops of their own (track-lanes.ts).
    return { kind: 'row', track: row.track };
  }
  const timeNs = nsOfX(input, xPx);
  const slopNs = hitSlopPx / pxPerNs(input);
  if (row.kind === 'nvtx') {
    const topPx = yPx - input.axisHeightPx;
    const rowTopPx = row.pinned ? row.topPx : layout.pinnedHeightPx + row.topPx - input.scrollTopPx;
    const depth = Math.floor(((topPx - rowTopPx) / row.heightPx) * Math.max(1, row.depthCount));
    const range = nearestRange(trace, row.track, depth, timeNs, slopNs);
    return range < 0
      ? { kind: 'row', track: row.track }
      : { kind: 'range', range, track: row.track };
  }
  // A stream row finds its work, its sync lane its host waits: what each of them draws.
  const op = nearestOp(trace, row.track, timeNs, slopNs, rowOps(layout, r));
  return op < 0 ? { kind: 'row', track: row.track } : { kind: 'op', op, track: row.track };
}

/**
 * The op of `track` containing `timeNs`, else the nearest within `slopNs`; -1 if none. `which`
 * narrows it to the ops one row of the track draws.
 */
export function nearestOp(
  trace: Trace,
  track: number,
  timeNs: number,
  slopNs: number,
  which: RowOps = RowOps.All,
): number {
  const ops = trace.ops.columns();
  const found = trace.ops.trackOpsInWindow(track, timeNs - slopNs, timeNs + slopNs);
  let best = -1;
  let bestDistNs = Infinity;
  for (let k = 0; k < found.length; k++) {
    const i = found[k]!;
    if (!rowOpsAccept(which, ops.kind[i]!)) {
      continue;
    }
    const s = ops.startNs[i]!;
    const e = ops.endNs[i]!;
    const distNs = timeNs < s ? s - timeNs : timeNs > e ? timeNs - e : 0;
    // Ties (nested or zero-length ops) go to the shortest, the one drawn on top.
    if (
      distNs < bestDistNs ||
      (distNs === bestDistNs && best >= 0 && e - s < ops.endNs[best]! - ops.startNs[best]!)
    ) {
      best = i;
      bestDistNs = distNs;
    }
  }
  return bestDistNs <= slopNs ? best : -1;
}

/** The NVTX range of (track, depth) containing `timeNs`, else the nearest within `slopNs`. */
export function nearestRange(
  trace: Trace,
  track: number,
  depth: number,
  timeNs: number,
  slopNs: number,
): number {
  const ranges = trace.ranges.columns();
  let best = -1;
  let bestDistNs = Infinity;
  // Ranges are few next to ops; a linear scan per pointer event is fine.
  for (let i = 0; i < ranges.count; i++) {
    if (ranges.track[i] !== track || ranges.depth[i] !== depth) {
      continue;
    }
    const s = ranges.startNs[i]!;
    const e = ranges.endNs[i]!;
    const distNs = timeNs < s ? s - timeNs : timeNs > e ? timeNs - e : 0;
    if (distNs < bestDistNs) {
      best = i;
      bestDistNs = distNs;
    }
  }
  return bestDistNs <= slopNs ? best : -1;
}
