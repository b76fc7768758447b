import type { AnalysisContext } from './context.ts';
import { engineOfKind, noEngine, occupiesStream } from './engines.ts';
import type { GapAttributor } from './gap-causes.ts';
import { complementWithin } from './intervals.ts';

/** Gaps as columns (a million-op trace can have a gap between every two ops). */
export interface GapRecords {
  readonly count: number;
  /** Stream track, or -1 for a device gap. */
  readonly track: Int32Array;
  readonly deviceSlot: Int32Array;
  readonly fromNs: Float64Array;
  readonly toNs: Float64Array;
  /** Index into `gapCauses`. */
  readonly cause: Uint8Array;
  readonly beforeOp: Int32Array;
  readonly afterOp: Int32Array;
  readonly causeOp: Int32Array;
  /** The host range the host was busy in (index into `trace.ranges`), or -1. */
  readonly causeRange: Int32Array;
  /** The part of the gap its cause accounts for (ns, at most the gap): what removing it saves. */
  readonly causeNs: Float64Array;
}

/**
 * Writes gaps into columns sized once for the most there can be: counted before they are found
 * (a trace can have a gap between every two ops). Columns that grew by doubling held up to twice
 * the gaps, and the old and new columns at once as they grew: at the 44M gaps a side of a
 * 50M-GPU-op trace, 2^26 slots of 49 bytes for each side, and 1.6 GB more while one doubled.
 */
class GapWriter {
  count = 0;
  private readonly columns: Omit<GapRecords, 'count'>;

  constructor(readonly capacity: number) {
    this.columns = {
      track: new Int32Array(capacity),
      deviceSlot: new Int32Array(capacity),
      fromNs: new Float64Array(capacity),
      toNs: new Float64Array(capacity),
      cause: new Uint8Array(capacity),
      beforeOp: new Int32Array(capacity),
      afterOp: new Int32Array(capacity),
      causeOp: new Int32Array(capacity),
      causeRange: new Int32Array(capacity),
      causeNs: new Float64Array(capacity),
    };
  }

  push(
    track: number,
    slot: number,
    fromNs: number,
    toNs: number,
    beforeOp: number,
    afterOp: number,
    why: GapAttributor,
  ): void {
    if (this.count === this.capacity) {
      throw new RangeError(`more than the ${this.capacity} gaps counted`);
    }
    const k = this.count++;
    const c = this.columns;
    c.track[k] = track;
    c.deviceSlot[k] = slot;
    c.fromNs[k] = fromNs;
    c.toNs[k] = toNs;
    c.cause[k] = why.cause;
    c.beforeOp[k] = beforeOp;
    c.afterOp[k] = afterOp;
    c.causeOp[k] = why.causeOp;
    c.causeRange[k] = why.causeRange;
    c.causeNs[k] = Math.min(why.causeNs, toNs - fromNs);
  }

  /** The gaps written: the columns themselves when every counted gap was found. */
  done(): GapRecords {
    const n = this.count;
    const c = this.columns;
    if (n === this.capacity) {
      return { count: n, ...c };
    }
    return {
      count: n,
      track: c.track.subarray(0, n),
      deviceSlot: c.deviceSlot.subarray(0, n),
      fromNs: c.fromNs.subarray(0, n),
      toNs: c.toNs.subarray(0, n),
      cause: c.cause.subarray(0, n),
      beforeOp: c.beforeOp.subarray(0, n),
      afterOp: c.afterOp.subarray(0, n),
      causeOp: c.causeOp.subarray(0, n),
      causeRange: c.causeRange.subarray(0, n),
      causeNs: c.causeNs.subarray(0, n),
    };
  }
}

/**
 * Every interval in which a stream sat idle between two of its ops (inside the window), with its
 * cause. Ops on a stream may overlap (graph nodes, imports): the stream is idle only past the
 * latest end seen so far. A stream whose first op starts after its device's first op also gets
 * a lead-in gap from that moment (beforeOp -1): a consumer stream held back from the start by a
 * synchronize is idle just the same.
 */
export function findStreamGaps(ctx: AnalysisContext, why: GapAttributor): GapRecords {
  let count = 0;
  forEachStreamGap(ctx, () => count++);
  const out = new GapWriter(count);
  forEachStreamGap(ctx, (track, slot, fromNs, toNs, beforeOp, p, busyUntilNs) => {
    why.attribute(busyUntilNs, track, p);
    out.push(track, slot, fromNs, toNs, beforeOp, ctx.walk.op[p]!, why);
  });
  return out.done();
}

/**
 * Calls `gap` for each stream gap, in order: its track, device slot, span, the op before it (-1
 * for a lead-in gap), the walk position of the op after it, and when the stream was last busy
 * (the device's first op for a lead-in gap), from which its cause is looked for.
 */
function forEachStreamGap(
  ctx: AnalysisContext,
  gap: (
    track: number,
    slot: number,
    fromNs: number,
    toNs: number,
    beforeOp: number,
    p: number,
    busyUntilNs: number,
  ) => void,
): void {
  const { window, walk } = ctx;
  ctx.tracksOfDevice.forEach((tracks, slot) => {
    const device = ctx.devices[slot]!;
    const deviceFromNs = device.all.count > 0 ? device.all.starts[0]! : Infinity;
    for (const track of tracks) {
      let prevOp = -1;
      let busyUntilNs = -Infinity;
      for (let p = walk.trackFrom[track]!; p < walk.trackFrom[track + 1]!; p++) {
        if (!occupiesStream(walk.kind[p]!)) {
          continue;
        }
        const startNs = walk.startNs[p]!;
        const endNs = walk.endNs[p]!;
        if (prevOp >= 0 && startNs > busyUntilNs && startNs > window.fromNs) {
          gap(track, slot, Math.max(busyUntilNs, window.fromNs), startNs, prevOp, p, busyUntilNs);
        } else if (prevOp < 0 && startNs > deviceFromNs) {
          gap(track, slot, deviceFromNs, startNs, -1, p, deviceFromNs);
        }
        if (endNs >= busyUntilNs) {
          busyUntilNs = endNs;
          prevOp = walk.op[p]!;
        }
      }
    }
  });
}

/**
 * Intervals in which no engine of a device was busy, between its first and last op in the
 * window, each attributed through the op that ended it.
 */
export function findDeviceGaps(ctx: AnalysisContext, why: GapAttributor): GapRecords {
  const { walk } = ctx;
  // Each device's idle spans first: the gaps are at most as many.
  const idleOf = ctx.devices.map((device) =>
    device.all.count === 0
      ? undefined
      : complementWithin(device.all, device.all.starts[0]!, device.all.ends[device.all.count - 1]!),
  );
  const out = new GapWriter(idleOf.reduce((sum, idle) => sum + (idle?.count ?? 0), 0));
  idleOf.forEach((idle, slot) => {
    if (idle === undefined) {
      return;
    }
    const tracks = ctx.tracksOfDevice[slot]!;
    // Per stream, its first op not starting before the current gap's end: the gaps come in time
    // order, so each cursor only moves on (one pass over the stream's ops for all the gaps, where
    // a binary search per gap and stream cost 21 steps each at 2.5M ops a stream).
    const cursor = Int32Array.from(tracks, (track) => walk.trackFrom[track]!);
    for (let g = 0; g < idle.count; g++) {
      const fromNs = idle.starts[g]!;
      const toNs = idle.ends[g]!;
      // The op that ended the gap: a work op starting exactly at its end, on some stream.
      let found = false;
      for (let t = 0; t < tracks.length; t++) {
        const track = tracks[t]!;
        const end = walk.trackFrom[track + 1]!;
        let p = cursor[t]!;
        while (p < end && walk.startNs[p]! < toNs) {
          p++;
        }
        cursor[t] = p;
        for (; p < end && walk.startNs[p] === toNs; p++) {
          if (engineOfKind(walk.kind[p]!) !== noEngine) {
            why.attribute(fromNs, track, p);
            out.push(-1, slot, fromNs, toNs, -1, walk.op[p]!, why);
            found = true;
            break;
          }
        }
        if (found) {
          break;
        }
      }
    }
  });
  return out.done();
}
