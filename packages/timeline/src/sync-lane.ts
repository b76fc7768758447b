import type { Trace } from '@streamscope/trace';
import { OpKind } from '@streamscope/trace';
import type { RowLayout } from './layout.ts';

/**
 * Host waits: the records of cudaStreamSynchronize, cudaEventSynchronize and
 * cudaDeviceSynchronize (context synchronize). The host waits while the stream goes on working,
 * so such a record spans the very ops it waits for and must not be drawn over them. A stream
 * wait (cudaStreamWaitEvent) is not one: the stream itself waits, in its own order, so it covers
 * none of the stream's ops and stays in the stream's row.
 */
export function isHostWaitKind(kind: number): boolean {
  return kind === OpKind.StreamSync || kind === OpKind.EventSync || kind === OpKind.DeviceSync;
}

/**
 * Which of its track's ops a row holds: all of them, the work of a track whose host waits have
 * a lane of their own, or those host waits (the lane).
 */
export const RowOps = { All: 0, Work: 1, HostWaits: 2 } as const;
export type RowOps = (typeof RowOps)[keyof typeof RowOps];

export function rowOpsAccept(which: RowOps, kind: number): boolean {
  return which === RowOps.All || (which === RowOps.HostWaits) === isHostWaitKind(kind);
}

/** The ops row `r` of `layout` holds (All for rows that hold no ops). */
export function rowOps(layout: RowLayout, r: number): RowOps {
  const row = layout.rows[r];
  if (row?.kind === 'sync') {
    return RowOps.HostWaits;
  }
  return row?.kind === 'track' && (layout.syncRowOfTrack[row.track] ?? -1) >= 0
    ? RowOps.Work
    : RowOps.All;
}

/** Index of the row an op of `track` and `kind` is drawn in, or -1 when its track is hidden. */
export function opRowIndex(layout: RowLayout, track: number, kind: number): number {
  const lane = layout.syncRowOfTrack[track] ?? -1;
  return lane >= 0 && isHostWaitKind(kind) ? lane : (layout.rowOfTrack[track] ?? -1);
}

/**
 * Keeps, in order, the ops of `order` that `which` accepts, moving them to its front, and
 * returns that prefix. `order` is overwritten: pass the caller's own array (a
 * `trackOpsInWindow` result), never a view of the trace's index.
 */
export function keepRowOps(order: Uint32Array, kinds: Uint8Array, which: RowOps): Uint32Array {
  if (which === RowOps.All) {
    return order;
  }
  let kept = 0;
  for (let k = 0; k < order.length; k++) {
    const op = order[k]!;
    if (rowOpsAccept(which, kinds[op]!)) {
      order[kept++] = op;
    }
  }
  return order.subarray(0, kept);
}

const hasHostWaits = 1;
const hasWork = 2;
const bothKinds = hasHostWaits | hasWork;

/**
 * Tracks whose host waits get a lane of their own under the track's row: those with host waits
 * and other ops (a track of nothing but host waits, such as nsys' 'Context 1 sync', has nothing
 * for them to cover and keeps them in its row). Each `update` reads only the ops appended since
 * the last one, so a live trace costs what it grew by.
 */
export class SyncLaneScan {
  private trace: Trace | undefined;
  private scanned = 0;
  /** Per track: hasHostWaits | hasWork bits. */
  private flags = new Uint8Array(16);
  private readonly laneTracks = new Set<number>();

  /** Tracks with a sync lane, as of the last `update`. */
  get tracks(): ReadonlySet<number> {
    return this.laneTracks;
  }

  /** Reads the ops appended since the last call (all of a new trace's); true if a lane appeared. */
  update(trace: Trace | undefined): boolean {
    let changed = false;
    if (trace !== this.trace) {
      changed = this.laneTracks.size > 0;
      this.trace = trace;
      this.scanned = 0;
      this.flags.fill(0);
      this.laneTracks.clear();
    }
    if (trace === undefined || trace.ops.count === this.scanned) {
      return changed;
    }
    const ops = trace.ops.columns();
    if (this.flags.length < trace.tracks.length) {
      const grown = new Uint8Array(Math.max(trace.tracks.length, this.flags.length * 2));
      grown.set(this.flags);
      this.flags = grown;
    }
    const flags = this.flags;
    const { track: tracks, kind: kinds } = ops;
    for (let i = this.scanned; i < ops.count; i++) {
      const track = tracks[i]!;
      const before = flags[track]!;
      if (before === bothKinds) {
        continue;
      }
      const after = before | (isHostWaitKind(kinds[i]!) ? hasHostWaits : hasWork);
      if (after !== before) {
        flags[track] = after;
        if (after === bothKinds) {
          this.laneTracks.add(track);
          changed = true;
        }
      }
    }
    this.scanned = ops.count;
    return changed;
  }
}

/** Tracks of `trace` whose host waits get a lane (see `SyncLaneScan`). */
export function syncLaneTracks(trace: Trace): ReadonlySet<number> {
  const scan = new SyncLaneScan();
  scan.update(trace);
  return scan.tracks;
}
