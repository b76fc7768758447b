import { rangeOrder } from '../range-staging.ts';
import { StagingColumn } from '../staging-columns.ts';
import { KeyedPoints, firstStartPast } from './keyed-points.ts';

/**
 * Launch links in a Chrome trace that no profiler-specific mapping reads: a host event and a GPU
 * event that carry the same correlation id (`args.correlation_id` in XLA profiles of JAX and
 * TensorFlow 2, `args.correlation` elsewhere) are a launch and what it launched. The host event
 * becomes an API call, and the GPU track moves to the process of the calls that launched its
 * work (the builder joins calls to GPU ops by process and correlation id, as for kineto).
 */
export interface GenericLinkPlan {
  /** Per staged event: 1 when it is a host event that launched a GPU event. */
  readonly launches: Uint8Array;
  /** Per track: the process its GPU work belongs to, or -1 to keep its own. */
  readonly ownerOfTrack: Int32Array;
}

/**
 * Plans the links of `n` staged events: `corr[i]` is event i's correlation id (-1: none),
 * `startNs[i]` its start, `track[i]` its track; `gpu(t)` says whether track t is a GPU stream and
 * `procOf(t)` which process it is of. An id is unique only within the process that made the call
 * (CUPTI's, XLA's): each GPU event votes for the process of the call with its id that began
 * last before it (else the first), a GPU track belongs to the process with most votes, and a
 * host event is a launch where its process owns a GPU track holding its id.
 */
export function planGenericLinks(
  n: number,
  corr: Float64Array,
  startNs: Float64Array,
  track: Uint32Array,
  trackCount: number,
  gpu: (t: number) => boolean,
  procOf: (t: number) => number,
): GenericLinkPlan {
  const launches = new Uint8Array(n);
  const ownerOfTrack = new Int32Array(trackCount).fill(-1);
  const gpuIds = new Set<number>();
  for (let i = 0; i < n; i++) {
    if (corr[i]! >= 0 && gpu(track[i]!)) {
      gpuIds.add(corr[i]!);
    }
  }
  if (gpuIds.size === 0) {
    return { launches, ownerOfTrack };
  }
  // The host events that carry each id a GPU event has (one per process, mostly), by start.
  const callsOf = new Map<number, number[]>();
  const hostIds = new Set<string>();
  for (let i = 0; i < n; i++) {
    const id = corr[i]!;
    if (id >= 0 && !gpu(track[i]!) && gpuIds.has(id)) {
      hostIds.add(`${procOf(track[i]!)}:${id}`);
      const calls = callsOf.get(id);
      if (calls === undefined) {
        callsOf.set(id, [i]);
      } else {
        calls.push(i);
      }
    }
  }
  for (const calls of callsOf.values()) {
    calls.sort((a, b) => startNs[a]! - startNs[b]!);
  }
  // A GPU op votes for its own track's process where that process made a call with its id,
  // else for the process of the call with its id that began last before it (else the first).
  const votes = new Map<number, Map<number, number>>();
  for (let i = 0; i < n; i++) {
    const t = track[i]!;
    const calls = corr[i]! >= 0 && gpu(t) ? callsOf.get(corr[i]!) : undefined;
    if (calls === undefined) {
      continue;
    }
    const own = procOf(t);
    const proc = hostIds.has(`${own}:${corr[i]}`)
      ? own
      : procOf(
          track[
            calls[Math.max(0, firstStartPast(calls, 0, calls.length, startNs, startNs[i]!) - 1)]!
          ]!,
        );
    const byProc = votes.get(t) ?? new Map<number, number>();
    byProc.set(proc, (byProc.get(proc) ?? 0) + 1);
    votes.set(t, byProc);
  }
  for (const [t, byProc] of votes) {
    let most = 0;
    for (const [proc, count] of byProc) {
      if (count > most) {
        most = count;
        ownerOfTrack[t] = proc;
      }
    }
  }
  // The ids each owning process launched on its tracks; its first host event of each is the call.
  const owned = new Set<string>();
  for (let i = 0; i < n; i++) {
    const owner = corr[i]! >= 0 && gpu(track[i]!) ? ownerOfTrack[track[i]!]! : -1;
    if (owner >= 0) {
      owned.add(`${owner}:${corr[i]}`);
    }
  }
  for (let i = 0; i < n; i++) {
    if (corr[i]! >= 0 && !gpu(track[i]!) && owned.delete(`${procOf(track[i]!)}:${corr[i]}`)) {
      launches[i] = 1;
    }
  }
  return { launches, ownerOfTrack };
}

/** Correlation ids are 32-bit in the op table; 0 is none. */
export const maxCorrelationId = 0xffffffff;

const flowStart = 0;
const flowEnd = 1;
const flowEndEnclosing = 2;

/**
 * The flow events (s, f) of a generic trace, kept to find the launches they draw: a flow from a
 * host event to a GPU event (as AMD's RPD writes `api_op` flows from a HIP call to its kernel)
 * joins the two as a correlation id would. Flow steps (t) and flows between two host or two GPU
 * events are not drawn.
 */
export class GenericFlows extends KeyedPoints {
  private readonly track = new StagingColumn(Uint32Array);
  private readonly point = new StagingColumn(Uint8Array);

  /**
   * A flow event of `id` (scoped by its category) on `track` at `atNs`: its start (`s`) or end
   * (`f`, bound to the slice enclosing it when `enclosing`, else to the next one to begin).
   */
  add(id: string, track: number, atNs: number, start: boolean, enclosing: boolean): void {
    const i = this.addPoint(id, atNs);
    this.track.at(i)[i] = track;
    this.point.at(i)[i] = start ? flowStart : enclosing ? flowEndEnclosing : flowEnd;
  }

  /**
   * Gives each host event and GPU event that a flow joins one correlation id in `corr` (an id of
   * their own, above any the file has, unless the host event has one already); `n` events,
   * `startNs`, `endNs`, `track` as staged. Returns how many flow events drew such a launch.
   */
  bind(
    n: number,
    startNs: Float64Array,
    endNs: Float64Array,
    track: Uint32Array,
    corr: Float64Array,
    gpu: (t: number) => boolean,
  ): number {
    // Each start pairs with the next end of its id (an id is free again once its flow ended).
    const pending = new Int32Array(this.keyCount).fill(-1);
    const pairs: number[] = [];
    for (let i = 0; i < this.n; i++) {
      const k = this.key.data[i]!;
      if (this.point.data[i] === flowStart) {
        pending[k] = i;
      } else if (pending[k]! >= 0) {
        pairs.push(pending[k]!, i);
        pending[k] = -1;
      }
    }
    const slices = new TrackSlices(n, startNs, endNs, track);
    let nextId = 1; // 0 is no correlation
    for (let i = 0; i < n; i++) {
      nextId = Math.max(nextId, corr[i]! + 1);
    }
    let bound = 0;
    for (let p = 0; p < pairs.length; p += 2) {
      const s = pairs[p]!;
      const f = pairs[p + 1]!;
      const host = slices.enclosing(this.track.data[s]!, this.atNs.data[s]!);
      const fTrack = this.track.data[f]!;
      const fNs = this.atNs.data[f]!;
      const device =
        this.point.data[f] === flowEndEnclosing
          ? slices.enclosing(fTrack, fNs)
          : slices.firstStartingFrom(fTrack, fNs);
      if (host < 0 || device < 0 || gpu(track[host]!) || !gpu(track[device]!)) {
        continue;
      }
      const hostId = corr[host]!;
      const deviceId = corr[device]!;
      if (deviceId >= 0 && hostId >= 0 && deviceId !== hostId) {
        continue; // their own ids say otherwise
      }
      if (deviceId < 0 && hostId < 0 && nextId > maxCorrelationId) {
        continue;
      }
      const id = deviceId >= 0 ? deviceId : hostId >= 0 ? hostId : nextId++;
      corr[host] = id;
      corr[device] = id;
      bound += 2;
    }
    return bound;
  }
}

/**
 * The staged events of each track in the order ranges are placed (rangeOrder: by start, the
 * longer first at one start, so the innermost of events beginning together is the last), to
 * find the one at a time.
 */
class TrackSlices {
  private readonly order: Uint32Array;
  private readonly from: Uint32Array;

  constructor(
    n: number,
    private readonly startNs: Float64Array,
    private readonly endNs: Float64Array,
    track: Uint32Array,
  ) {
    // A begin that never ended (NaN) ends after everything.
    const ends = endNs.map((e) => (Number.isNaN(e) ? Number.POSITIVE_INFINITY : e));
    this.order = rangeOrder(track, startNs, ends, n);
    let tracks = 0;
    for (let i = 0; i < n; i++) {
      tracks = Math.max(tracks, track[i]! + 1);
    }
    this.from = new Uint32Array(tracks + 1);
    for (let i = 0; i < n; i++) {
      this.from[track[i]! + 1]!++;
    }
    for (let t = 0; t < tracks; t++) {
      this.from[t + 1]! += this.from[t]!;
    }
  }

  /** The innermost event of track `t` that covers `atNs` (the latest to start of those), or -1. */
  enclosing(t: number, atNs: number): number {
    if (t + 1 >= this.from.length) {
      return -1;
    }
    const lo = this.from[t]!;
    const last = firstStartPast(this.order, lo, this.from[t + 1]!, this.startNs, atNs) - 1;
    // Nested events end by their parents' ends: a short walk back from the last to start.
    for (let p = last, steps = 0; p >= lo && steps < 64; p--, steps++) {
      const i = this.order[p]!;
      if (!(this.endNs[i]! < atNs)) {
        return i;
      }
    }
    return -1;
  }

  /** The first event of track `t` to start at or after `atNs`, or -1. */
  firstStartingFrom(t: number, atNs: number): number {
    if (t + 1 >= this.from.length) {
      return -1;
    }
    const hi = this.from[t + 1]!;
    const p = firstStartPast(this.order, this.from[t]!, hi, this.startNs, atNs, true);
    return p < hi ? this.order[p]! : -1;
  }
}
