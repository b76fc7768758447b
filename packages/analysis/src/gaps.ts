import type { AnalysisContext } from './context.ts';
import { engineOfKind, noEngine, occupiesStream } from './engines.ts';
import type { GapAttributor } from './gap-causes.ts';
import { complementWithin } from './intervals.ts';
import { walkLowerBound } from './track-walk.ts';

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

/** Appends gaps to columns that grow geometrically (most traces have far fewer gaps than ops). */
class GapWriter {
  count = 0;
  track = new Int32Array(1024);
  deviceSlot = new Int32Array(1024);
  fromNs = new Float64Array(1024);
  toNs = new Float64Array(1024);
  cause = new Uint8Array(1024);
  beforeOp = new Int32Array(1024);
  afterOp = new Int32Array(1024);
  causeOp = new Int32Array(1024);
  causeRange = new Int32Array(1024);
  causeNs = new Float64Array(1024);

  private grow(): void {
    const size = this.track.length * 2;
    const grown = <T extends Int32Array | Float64Array | Uint8Array>(
      old: T,
      make: (n: number) => T,
    ): T => {
      const next = make(size);
      next.set(old);
      return next;
    };
    this.track = grown(this.track, (n) => new Int32Array(n));
    this.deviceSlot = grown(this.deviceSlot, (n) => new Int32Array(n));
    this.fromNs = grown(this.fromNs, (n) => new Float64Array(n));
    this.toNs = grown(this.toNs, (n) => new Float64Array(n));
    this.cause = grown(this.cause, (n) => new Uint8Array(n));
    this.beforeOp = grown(this.beforeOp, (n) => new Int32Array(n));
    this.afterOp = grown(this.afterOp, (n) => new Int32Array(n));
    this.causeOp = grown(this.causeOp, (n) => new Int32Array(n));
    this.causeRange = grown(this.causeRange, (n) => new Int32Array(n));
    this.causeNs = grown(this.causeNs, (n) => new Float64Array(n));
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
    if (this.count === this.track.length) {
      this.grow();
    }
    const k = this.count++;
    this.track[k] = track;
    this.deviceSlot[k] = slot;
    this.fromNs[k] = fromNs;
    this.toNs[k] = toNs;
    this.cause[k] = why.cause;
    this.beforeOp[k] = beforeOp;
    this.afterOp[k] = afterOp;
    this.causeOp[k] = why.causeOp;
    this.causeRange[k] = why.causeRange;
    this.causeNs[k] = Math.min(why.causeNs, toNs - fromNs);
  }

  done(): GapRecords {
    const n = this.count;
    return {
      count: n,
      track: this.track.subarray(0, n),
      deviceSlot: this.deviceSlot.subarray(0, n),
      fromNs: this.fromNs.subarray(0, n),
      toNs: this.toNs.subarray(0, n),
      cause: this.cause.subarray(0, n),
      beforeOp: this.beforeOp.subarray(0, n),
      afterOp: this.afterOp.subarray(0, n),
      causeOp: this.causeOp.subarray(0, n),
      causeRange: this.causeRange.subarray(0, n),
      causeNs: this.causeNs.subarray(0, n),
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
  const { window, walk } = ctx;
  const out = new GapWriter();
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
        const op = walk.op[p]!;
        const startNs = walk.startNs[p]!;
        const endNs = walk.endNs[p]!;
        if (prevOp >= 0 && startNs > busyUntilNs && startNs > window.fromNs) {
          const fromNs = Math.max(busyUntilNs, window.fromNs);
          why.attribute(busyUntilNs, track, p);
          out.push(track, slot, fromNs, startNs, prevOp, op, why);
        } else if (prevOp < 0 && startNs > deviceFromNs) {
          why.attribute(deviceFromNs, track, p);
          out.push(track, slot, deviceFromNs, startNs, -1, op, why);
        }
        if (endNs >= busyUntilNs) {
          busyUntilNs = endNs;
          prevOp = op;
        }
      }
    }
  });
  return out.done();
}

/**
 * Intervals in which no engine of a device was busy, between its first and last op in the
 * window, each attributed through the op that ended it.
 */
export function findDeviceGaps(ctx: AnalysisContext, why: GapAttributor): GapRecords {
  const { walk } = ctx;
  const out = new GapWriter();
  ctx.devices.forEach((device, slot) => {
    if (device.all.count === 0) {
      return;
    }
    const idle = complementWithin(
      device.all,
      device.all.starts[0]!,
      device.all.ends[device.all.count - 1]!,
    );
    for (let g = 0; g < idle.count; g++) {
      const fromNs = idle.starts[g]!;
      const toNs = idle.ends[g]!;
      // The op that ended the gap: a work op starting exactly at its end, on some stream.
      let found = false;
      for (const track of ctx.tracksOfDevice[slot]!) {
        const end = walk.trackFrom[track + 1]!;
        for (let p = walkLowerBound(walk, track, toNs); p < end && walk.startNs[p] === toNs; p++) {
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
