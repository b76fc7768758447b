import type { Trace } from '@streamscope/trace';
import { OpFlag, bandwidthGBps, isCopyKind, opKindName, trackLabels } from '@streamscope/trace';
import { inStreamOrder } from './stream-order.ts';

/** Count and durations of some ops (a kind's, a stream's, or the whole set's). */
export interface DurationStats {
  readonly count: number;
  readonly totalNs: number;
  readonly meanNs: number;
  readonly minNs: number;
  readonly maxNs: number;
}

export interface OpSetStats extends DurationStats {
  readonly byKind: readonly (DurationStats & { readonly kind: string })[];
  /** In the timeline's stream order. */
  readonly byStream: readonly (DurationStats & {
    readonly track: number;
    readonly label: string;
  })[];
  /** Copies of the set: how many, bytes moved, their time, and bytes over that time. */
  readonly copies: {
    readonly count: number;
    readonly bytes: number;
    readonly durNs: number;
    /** GB/s (10^9 bytes per second) over the copies' summed time; 0 when none moved bytes. */
    readonly bandwidthGBps: number;
    /** Copies whose source recorded no size (left out of bytes and bandwidth). */
    readonly sizeUnknown: number;
  };
}

class Acc {
  count = 0;
  totalNs = 0;
  minNs = Infinity;
  maxNs = -Infinity;
  add(durNs: number): void {
    this.count++;
    this.totalNs += durNs;
    this.minNs = Math.min(this.minNs, durNs);
    this.maxNs = Math.max(this.maxNs, durNs);
  }
  stats(): DurationStats {
    const empty = this.count === 0;
    return {
      count: this.count,
      totalNs: this.totalNs,
      meanNs: empty ? 0 : this.totalNs / this.count,
      minNs: empty ? 0 : this.minNs,
      maxNs: empty ? 0 : this.maxNs,
    };
  }
}

/**
 * What the details panel shows for ops selected together: count and total, mean, min and max
 * duration, the same by kind (largest total first) and by stream, and bytes and bandwidth of the
 * copies. Ops out of range are skipped.
 */
export function opSetStats(trace: Trace, set: readonly number[]): OpSetStats {
  const ops = trace.ops.columns();
  const all = new Acc();
  const kinds = new Map<number, Acc>();
  const streams = new Map<number, Acc>();
  let copies = 0;
  let copyBytes = 0;
  let copyNs = 0;
  let sizeUnknown = 0;
  for (const op of set) {
    if (!(op >= 0 && op < ops.count)) {
      continue;
    }
    const durNs = ops.endNs[op]! - ops.startNs[op]!;
    const kind = ops.kind[op]!;
    all.add(durNs);
    kinds
      .set(kind, kinds.get(kind) ?? new Acc())
      .get(kind)!
      .add(durNs);
    const track = ops.track[op]!;
    streams
      .set(track, streams.get(track) ?? new Acc())
      .get(track)!
      .add(durNs);
    if (isCopyKind(kind)) {
      copies++;
      if ((ops.flags[op]! & OpFlag.BytesUnknown) !== 0) {
        sizeUnknown++;
      } else {
        copyBytes += ops.bytes[op]!;
        copyNs += durNs;
      }
    }
  }
  const labels = trackLabels(trace.tracks);
  return {
    ...all.stats(),
    byKind: [...kinds]
      .map(([kind, acc]) => ({ kind: opKindName(kind), ...acc.stats() }))
      .sort((a, b) => b.totalNs - a.totalNs || a.kind.localeCompare(b.kind)),
    byStream: inStreamOrder(
      trace.tracks,
      [...streams].map(([track, acc]) => ({
        track,
        label: labels[track] ?? `track ${track}`,
        ...acc.stats(),
      })),
    ),
    copies: {
      count: copies,
      bytes: copyBytes,
      durNs: copyNs,
      bandwidthGBps: copyBytes > 0 && copyNs > 0 ? bandwidthGBps(copyBytes, copyNs) : 0,
      sizeUnknown,
    },
  };
}
