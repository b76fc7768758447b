import type { RangeColumns, StreamType } from '@streamscope/trace';
import { OpKind, lowerBoundOf } from '@streamscope/trace';
import type { AnalysisContext } from './context.ts';
import { engineOfKind, isCopyEngine, occupiesStream } from './engines.ts';
import type { HostHold } from './host-calls.ts';
import { hostHold } from './host-calls.ts';
import { lastAtOrBefore } from './intervals.ts';
import { walkLowerBound } from './track-walk.ts';
import type { GapCause } from './types.ts';
import { gapCauses } from './types.ts';

export const causeIndex = Object.fromEntries(gapCauses.map((c, i) => [c, i])) as Record<
  GapCause,
  number
>;

/** How far back from an op we look for the wait markers that precede it on its stream. */
const maxMarkerScan = 256;
/** How many host ops before a late launch we inspect. */
const maxHostScan = 64;

/**
 * Explains why `op` did not start at `prevEndNs` (when its stream, or the device, went idle).
 * Every constraint that could have held it has a release time: the event it waited on fired,
 * the legacy default stream's barrier lifted, the engine it needs came free, the host issued
 * it. The cause is the constraint released last inside the gap; ties go to the one listed
 * first. With none inside the gap, what is left is launch latency, or unknown without the API
 * call or when the wait is longer than any launch latency (`maxLaunchLatencyNs`). Results are left in fields to keep the per-gap path free of allocation.
 */
export class GapAttributor {
  /**
   * The result of the last `attribute`: index into `gapCauses`; the op that explains it, or the
   * host range (index into `trace.ranges`) when the host was busy in one; and `causeNs`, the part
   * of the gap the cause accounts for (see `chargeNs`).
   */
  cause = 0;
  causeOp = -1;
  causeRange = -1;
  causeNs = 0;

  // The constraint released last so far (see `offer`).
  private bestNs = 0;
  private bestCause = -1;
  private bestOp = -1;
  private limitNs = 0;

  private readonly streamTypeOf: StreamType[];
  private readonly legacyTracks: number[][];
  private readonly blockingTracks: number[][];
  private readonly singleCopyEngine: boolean[];
  private readonly holdCache = new Map<number, HostHold>();
  private readonly ranges: RangeColumns;
  /** Per track, where in its op order the last host lookup landed (see `hostPosition`). */
  private readonly lastHostPosition: Int32Array;

  constructor(private readonly ctx: AnalysisContext) {
    this.ranges = ctx.trace.ranges.columns();
    this.lastHostPosition = new Int32Array(ctx.trace.tracks.length);
    const tracks = ctx.trace.tracks;
    this.streamTypeOf = tracks.map((t) => (t.kind === 'gpu-stream' ? t.streamType : 'unknown'));
    this.legacyTracks = ctx.tracksOfDevice.map((ts) =>
      ts.filter((t) => this.streamTypeOf[t] === 'legacy-default'),
    );
    this.blockingTracks = ctx.tracksOfDevice.map((ts) =>
      ts.filter((t) => syncsWithLegacy(this.streamTypeOf[t]!)),
    );
    this.singleCopyEngine = ctx.devices.map(
      (d) => ctx.trace.devices.find((info) => info.deviceId === d.deviceId)?.copyEngineCount === 1,
    );
  }

  /**
   * The copy of another stream of device `slot` that ended at `endNs` on `engine` (any copy
   * engine when the device has one), the engine's holder; -1 when none is found.
   */
  private copyEndingAt(
    slot: number,
    ownTrack: number,
    endNs: number,
    anyCopyEngine: boolean,
    engine: number,
  ): number {
    const { walk } = this.ctx;
    for (const t of this.ctx.tracksOfDevice[slot]!) {
      if (t === ownTrack) {
        continue;
      }
      // On a stream ops do not overlap: the one ending at endNs is the last to start before it.
      const p = walkLowerBound(walk, t, endNs) - 1;
      for (let q = p; q >= walk.trackFrom[t]! && q >= p - 2; q--) {
        const e = engineOfKind(walk.kind[q]!);
        if (walk.endNs[q] === endNs && (anyCopyEngine ? isCopyEngine(e) : e === engine)) {
          return walk.op[q]!;
        }
      }
    }
    return -1;
  }

  /** Attributes the idle time before the op at walk position `p` (on stream `track`). */
  attribute(prevEndNs: number, track: number, p: number): void {
    const { walk } = this.ctx;
    const op = walk.op[p]!;
    const startNs = walk.startNs[p]!;
    const slot = this.ctx.deviceSlotOfTrack[track]!;
    this.bestNs = prevEndNs;
    this.bestCause = -1;
    this.bestOp = -1;
    this.causeRange = -1;
    this.limitNs = startNs + this.ctx.options.dispatchSlackNs;

    // 1. Event waits between the previous op on the stream and this one (or on the op itself).
    const first = walk.trackFrom[track]!;
    for (let k = p - 1; k >= first && p - k <= maxMarkerScan; k--) {
      const kind = walk.kind[k]!;
      if (occupiesStream(kind)) {
        break;
      }
      if (kind === OpKind.StreamWait) {
        const record = this.recordOf(walk.op[k]!);
        if (record >= 0) {
          this.offer(this.firedAtNs(record), causeIndex['event-wait'], record);
        }
      }
    }
    const direct = this.recordOf(op);
    if (direct >= 0) {
      this.offer(this.firedAtNs(direct), causeIndex['event-wait'], direct);
    }

    // 2. The legacy default stream's implicit barrier.
    const type = this.streamTypeOf[track]!;
    const apiStartNs = walk.apiStartNs[p]!;
    if (slot >= 0 && type === 'legacy-default') {
      for (const other of this.blockingTracks[slot]!) {
        if (other !== track) {
          this.offerBarrier(other, startNs, apiStartNs);
        }
      }
    } else if (slot >= 0 && syncsWithLegacy(type)) {
      for (const legacy of this.legacyTracks[slot]!) {
        this.offerBarrier(legacy, startNs, apiStartNs);
      }
    }

    // 3. The copy engine it needs was busy with another stream's copy until just before it
    // started. (Kernels share the SMs; one ending just before another starts proves nothing.)
    const engine = engineOfKind(walk.kind[p]!);
    if (slot >= 0 && isCopyEngine(engine)) {
      const device = this.ctx.devices[slot]!;
      const ends = this.singleCopyEngine[slot] ? device.copySortedEnds : device.sortedEnds[engine]!;
      const k = lastAtOrBefore(ends, startNs);
      if (k >= 0 && startNs - ends[k]! <= this.ctx.options.dispatchSlackNs) {
        const holder = this.copyEndingAt(
          slot,
          track,
          ends[k]!,
          this.singleCopyEngine[slot]!,
          engine,
        );
        this.offer(ends[k]!, causeIndex['engine-busy'], holder);
      }
    }

    // 4. The host issued it late (or its launch call was still running).
    const api = this.ctx.apiOf[op]!;
    let hostLate = false;
    if (api >= 0) {
      const releaseNs = Math.min(walk.apiEndNs[p]!, startNs);
      const late = apiStartNs > prevEndNs;
      const before = this.bestCause;
      this.offer(releaseNs, causeIndex[late ? 'host-busy' : 'launch-latency'], api);
      hostLate = this.bestCause !== before && late;
    }

    if (this.bestCause < 0) {
      // Issued in time and nothing recorded held it: launch latency, if plausibly that short.
      const waitedNs = startNs - Math.max(prevEndNs, walk.apiEndNs[p]!);
      const latency = api >= 0 && waitedNs <= this.ctx.options.maxLaunchLatencyNs;
      this.cause = causeIndex[latency ? 'launch-latency' : 'unknown'];
      this.causeOp = api;
      this.causeNs = 0;
      return;
    }
    this.cause = this.bestCause;
    this.causeOp = this.bestOp;
    if (hostLate) {
      this.explainHost(prevEndNs, api);
    }
    this.causeNs = this.chargeNs(prevEndNs, startNs);
  }

  /**
   * What the cause accounts for of the gap [prevEndNs, startNs], at most the gap. A host call or
   * range (synchronize, blocking copy, allocator call, host work, the late launch call itself) is
   * charged only the time the host spent in it before the op started: without it the host would
   * have issued the op that much sooner, never more. A constraint on the GPU side (event, legacy
   * barrier, engine) holds the whole gap. Launch latency and unknown waits are charged nothing:
   * there is nothing recorded to change.
   */
  private chargeNs(prevEndNs: number, startNs: number): number {
    const gapNs = Math.max(0, startNs - prevEndNs);
    const cause = gapCauses[this.cause]!;
    if (cause === 'launch-latency' || cause === 'unknown') {
      return 0;
    }
    if (cause === 'event-wait' || cause === 'legacy-default-stream' || cause === 'engine-busy') {
      return gapNs;
    }
    let fromNs: number;
    let toNs: number;
    if (this.causeRange >= 0) {
      fromNs = this.ranges.startNs[this.causeRange]!;
      toNs = this.ranges.endNs[this.causeRange]!;
    } else if (this.causeOp >= 0) {
      fromNs = this.ctx.cols.startNs[this.causeOp]!;
      toNs = this.ctx.cols.endNs[this.causeOp]!;
    } else {
      return 0;
    }
    return Math.max(0, Math.min(gapNs, Math.min(toNs, startNs) - fromNs));
  }

  /** Keeps a constraint if it was released later than the best so far, inside the gap. */
  private offer(releaseNs: number, cause: number, by: number): void {
    if (releaseNs > this.bestNs && releaseNs <= this.limitNs) {
      this.bestNs = releaseNs;
      this.bestCause = cause;
      this.bestOp = by;
    }
  }

  /** The record op an event wait (GPU marker or its API call) waited on, or -1. */
  private recordOf(wait: number): number {
    const direct = this.ctx.recordOfWait(wait);
    if (direct >= 0) {
      return direct;
    }
    const api = this.ctx.apiOf[wait]!;
    return api >= 0 ? this.ctx.recordOfWait(api) : -1;
  }

  /** When the event fired: the record's end on its stream (or that of its GPU marker). */
  private firedAtNs(record: number): number {
    const { cols } = this.ctx;
    if (this.ctx.deviceSlotOfTrack[cols.track[record]!]! >= 0) {
      return cols.endNs[record]!;
    }
    const gpu = this.ctx.gpuOfApi[record]!;
    return gpu >= 0 ? cols.endNs[gpu]! : -Infinity;
  }

  /** Offers the end of the last op on `other` that started before `startNs`, if issued first. */
  private offerBarrier(other: number, startNs: number, apiStartNs: number): void {
    const { walk } = this.ctx;
    const first = walk.trackFrom[other]!;
    const from = walkLowerBound(walk, other, startNs) - 1;
    for (let k = from; k >= first && from - k < maxMarkerScan; k--) {
      if (!occupiesStream(walk.kind[k]!)) {
        continue;
      }
      const barrierApiNs = walk.apiStartNs[k]!;
      // NaN (no API call known) compares false: then issue order cannot rule the barrier out.
      if (!(barrierApiNs >= apiStartNs)) {
        this.offer(walk.endNs[k]!, causeIndex['legacy-default-stream'], walk.op[k]!);
      }
      return;
    }
  }

  /**
   * The first position in `track`'s op order whose op starts at or after `startNs`. Gaps are
   * attributed in time order (stream by stream), so the answer is near the last one for the
   * track: a search galloping out from there reads a few neighbouring ops, where a binary
   * search over the whole order (11M calls on a host thread) read 24 scattered ones.
   */
  private hostPosition(track: number, order: Uint32Array, startNs: number): number {
    const starts = this.ctx.cols.startNs;
    const n = order.length;
    const at = Math.min(this.lastHostPosition[track]!, n);
    let lo: number;
    let hi: number;
    if (at < n && starts[order[at]!]! < startNs) {
      // Forward: the answer is past `at`.
      lo = at + 1;
      let step = 1;
      hi = lo;
      while (hi < n && starts[order[hi]!]! < startNs) {
        lo = hi + 1;
        hi = Math.min(n, hi + step);
        step *= 2;
      }
    } else {
      // Backward: the answer is at or before `at`.
      hi = at;
      let step = 1;
      lo = hi;
      while (lo > 0 && !(starts[order[lo - 1]!]! < startNs)) {
        hi = lo - 1;
        lo = Math.max(0, lo - step);
        step *= 2;
      }
    }
    // The answer lies in [lo, hi]: every position before lo starts earlier, hi does not (or is n).
    const found = lowerBoundOf(order, starts, startNs, lo, hi);
    this.lastHostPosition[track] = found;
    return found;
  }

  /**
   * Refines a late launch: what the host thread was doing between `prevEndNs` and the call. A
   * blocking call in that time wins (it held the host until the GPU caught up); otherwise the
   * host was busy, in the innermost thing covering at least half of the time it was late: a host
   * op (they sit inside ranges), else a range (NVTX, kineto CPU op, annotation), else the op
   * that overlapped it most, else the late call itself.
   */
  private explainHost(prevEndNs: number, api: number): void {
    const { cols } = this.ctx;
    const apiStartNs = cols.startNs[api]!;
    const order = this.ctx.trace.ops.trackOrder(cols.track[api]!);
    const lo = this.hostPosition(cols.track[api]!, order, apiStartNs);
    const lateNs = apiStartNs - prevEndNs;
    let bestBlock = -1;
    let bestBlockNs = 0;
    let bestBlockHold: HostHold = 'host-busy';
    let coveringBlock = -1;
    let coveringHold: HostHold = 'host-busy';
    let bestBusy = -1;
    let bestBusyNs = 0;
    for (let k = lo - 1, seen = 0; k >= 0 && seen < maxHostScan; k--, seen++) {
      const h = order[k]!;
      const endNs = cols.endNs[h]!;
      if (endNs <= prevEndNs) {
        break;
      }
      const overlapNs = Math.min(endNs, apiStartNs) - Math.max(cols.startNs[h]!, prevEndNs);
      const hold = hostHold(this.ctx, h, this.holdCache);
      if (hold === 'host-busy') {
        if (overlapNs > bestBusyNs) {
          bestBusy = h;
          bestBusyNs = overlapNs;
        }
        continue;
      }
      if (cols.startNs[h]! <= prevEndNs) {
        coveringBlock = h;
        coveringHold = hold;
      }
      if (overlapNs > bestBlockNs) {
        bestBlock = h;
        bestBlockNs = overlapNs;
        bestBlockHold = hold;
      }
    }
    // Blocked when the stream went idle: the host could only go on once the GPU caught up.
    if (coveringBlock >= 0) {
      this.cause = causeIndex[coveringHold];
      this.causeOp = coveringBlock;
    } else if (bestBlock >= 0 && bestBlockNs * 2 >= lateNs) {
      this.cause = causeIndex[bestBlockHold];
      this.causeOp = bestBlock;
    } else {
      this.cause = causeIndex['host-busy'];
      const range =
        bestBusy >= 0 && bestBusyNs * 2 >= lateNs
          ? -1
          : this.ctx.hostRanges.innermostCovering(cols.track[api]!, prevEndNs, apiStartNs);
      this.causeRange = range;
      this.causeOp = range >= 0 ? -1 : bestBusy >= 0 ? bestBusy : api;
    }
  }
}

/** Streams that the legacy default stream synchronizes with (all but non-blocking ones). */
function syncsWithLegacy(type: StreamType): boolean {
  return type === 'blocking' || type === 'per-thread-default' || type === 'legacy-default';
}
