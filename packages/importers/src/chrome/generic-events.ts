import type { LaunchTable } from '@streamscope/trace';
import { OpFlag, OpKind, RangeKind, noRef } from '@streamscope/trace';
import { clearStagedOp, newStagedOp } from '../op-staging.ts';
import { StagingColumn } from '../staging-columns.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import type { ChromeEvent } from './chrome-event.ts';
import type { ChromeMetadata } from './chrome-metadata.ts';
import { idKey, intOr } from './chrome-metadata.ts';
import type { EventTimes } from './event-times.ts';
import { AsyncEvents, packRows } from './generic-async.ts';
import { detailsMemKinds, detailsSize, gpuKindOf, parseLaunch } from './generic-details.ts';
import { GenericFlows, maxCorrelationId, planGenericLinks } from './generic-links.ts';
import { TrackPlacer } from './generic-places.ts';
import { counted } from '../warnings.ts';

/** Distinct kernel_details texts whose launch is remembered (a file has few). */
const maxCachedDetails = 4096;

/** What `emit` placed. */
export interface GenericPlaced {
  readonly gpuOps: number;
  /** Flow events that drew no launch (between two host events, say): not drawn. */
  readonly flowsNotDrawn: number;
  readonly hostTracks: number;
}

/**
 * Chrome trace events that no profiler-specific mapping reads (nsys-to-Chrome converters, XLA
 * profiles of JAX and TensorFlow, AMD's RPD, the legacy autograd profiler, any chrome://tracing
 * writer): every complete (X) or begin/end (B/E) event on a track per (pid, tid). A GPU stream's events (TrackPlacer says which tracks are) are kernels, or copies
 * and memsets by name; a host thread's are ranges, or API calls where a correlation id or a flow
 * joins them to GPU work (generic-links.ts). Metadata may come last, so events are staged in
 * columns and placed by `emit`.
 */
export class GenericEvents {
  private readonly trackIndex = new Map<string, number>();
  private readonly trackPid: unknown[] = [];
  private readonly trackTid: unknown[] = [];
  /** Per track: staged begin (B) events not yet ended, innermost last. */
  private readonly open: number[][] = [];
  private n = 0;
  private readonly track = new StagingColumn(Uint32Array);
  private readonly startNs = new StagingColumn(Float64Array);
  /** NaN while a begin event has no end. */
  private readonly endNs = new StagingColumn(Float64Array);
  private readonly nameRef = new StagingColumn(Int32Array);
  private readonly catRef = new StagingColumn(Int32Array);
  /** The op kind by name, used where the track turns out to be a GPU stream. */
  private readonly kind = new StagingColumn(Uint8Array);
  /** `args.bytes` or `args.size`; NaN when the event has neither. */
  private readonly bytes = new StagingColumn(Float64Array);
  /** Packed source and destination memory kinds a copy states (XLA's memcpy_details). */
  private readonly memKinds = new StagingColumn(Uint8Array);
  /** `args.correlation_id` or `args.correlation`; -1 when none. */
  private readonly corr = new StagingColumn(Float64Array);
  /** The launch configuration XLA's kernel_details states (a LaunchTable ref), else noRef. */
  private readonly launch = new StagingColumn(Uint32Array);

  constructor(private readonly launches: LaunchTable) {}
  private lastNs = 0;
  private readonly flows = new GenericFlows();
  private readonly async = new AsyncEvents();
  /** The tracks of async events' rows: host rows whatever their process is called. */
  private readonly asyncTracks = new Set<number>();
  /** Launch configurations by kernel_details text (XLA repeats them per kernel). */
  private readonly launchByDetails = new Map<string, number>();
  unmatchedEnds = 0;
  /** Named ends that closed an open begin with begins still open inside it. */
  private endsPastInner = 0;
  /** Per track, the begins the last such end closed with it, and its time (see `end`). */
  private readonly endedEarly: ({ atNs: number; names: number[]; closes: number } | undefined)[] =
    [];
  sawLegacy = false;

  get count(): number {
    return this.n;
  }

  /**
   * A flow event (s, t, f), its time already read into `times`, kept to find the launch it
   * draws. False for a step (t) or a flow with no id to pair its ends by (not drawn).
   */
  flow(e: ChromeEvent, ph: string, times: EventTimes): boolean {
    const flowId = e.flowId();
    if (ph === 't' || flowId === undefined) {
      return false;
    }
    const id = `${e.cat ?? ''}\u0000${idKey(flowId)}`;
    const t = this.trackOf(e.pid, e.tid);
    this.flows.add(id, t, times.startNs, ph === 's', e.bindsEnclosing());
    return true;
  }

  /** One X, B or E event, its times already read into `times`. */
  add(e: ChromeEvent, ph: string, times: EventTimes, name: (value: string) => number): void {
    const t = this.trackOf(e.pid, e.tid);
    if (ph === 'E') {
      this.end(t, times.startNs, e.name === undefined || e.name === '' ? -1 : name(e.name));
      this.lastNs = Math.max(this.lastNs, times.startNs);
      return;
    }
    const i = this.stage(e, t, ph, times, name);
    if (ph === 'B') {
      this.open[t]!.push(i);
    }
  }

  /**
   * An async begin (b, S) or end (e, F) event, its time read into `times`: a begin is a range on
   * its process's row of async events of its category ("io (async)"; rows "io (async) 2", … for
   * requests in flight together), ended by `emit` (AsyncEvents pairs them). False for an event
   * with no id, which cannot be paired (not drawn).
   */
  asyncEvent(
    e: ChromeEvent,
    ph: string,
    times: EventTimes,
    name: (value: string) => number,
  ): boolean {
    const id = e.flowId();
    if (id === undefined) {
      return false;
    }
    const cat = e.cat ?? '';
    const key =
      ph === 'b' || ph === 'e'
        ? `b\u0000${idKey(e.pid)}\u0000${cat}\u0000${idKey(id)}`
        : `S\u0000${cat}\u0000${e.name ?? ''}\u0000${idKey(id)}`;
    if (ph === 'b' || ph === 'S') {
      const t = this.asyncTrack(e.pid, `${cat === '' ? 'events' : cat} (async)`);
      this.async.add(key, times.startNs, this.stage(e, t, 'B', times, name));
    } else {
      this.async.add(key, times.startNs, -1);
      this.lastNs = Math.max(this.lastNs, times.startNs);
    }
    return true;
  }

  private asyncTrack(pid: unknown, label: string): number {
    const t = this.trackOf(pid, label);
    this.asyncTracks.add(t);
    return t;
  }

  /** Ends the async begins and spreads those in flight together over rows of their own. */
  private placeAsync(): void {
    const begins = this.async.pair(this.startNs.data, this.endNs.data);
    const byTrack = new Map<number, number[]>();
    for (const b of begins) {
      const t = this.track.data[b]!;
      const list = byTrack.get(t);
      if (list === undefined) {
        byTrack.set(t, [b]);
      } else {
        list.push(b);
      }
    }
    for (const [t, ranges] of byTrack) {
      const rows = packRows(ranges, this.startNs.data, this.endNs.data);
      const label = String(this.trackTid[t]);
      ranges.forEach((b, j) => {
        const row = rows[j]!;
        if (row > 0) {
          this.track.data[b] = this.asyncTrack(this.trackPid[t], `${label} ${row + 1}`);
        }
      });
    }
  }

  /** Stages event `e` of phase `ph` (X, or B: no end yet) on track `t`; returns its index. */
  private stage(
    e: ChromeEvent,
    t: number,
    ph: string,
    times: EventTimes,
    name: (value: string) => number,
  ): number {
    const startNs = times.startNs;
    const i = this.n++;
    const endNs = ph === 'X' ? startNs + times.durNs : Number.NaN;
    const cat = e.cat ?? '';
    this.track.at(i)[i] = t;
    this.startNs.at(i)[i] = startNs;
    this.endNs.at(i)[i] = endNs;
    const eventName = e.name ?? cat;
    this.nameRef.at(i)[i] = name(eventName);
    this.kind.at(i)[i] = gpuKindOf(eventName);
    this.catRef.at(i)[i] = cat === '' ? 0 : name(cat);
    const details = typeof e.memcpyDetails === 'string' ? e.memcpyDetails : '';
    const bytes = intOr(e.bytesArg, intOr(e.size, detailsSize(details)));
    this.bytes.at(i)[i] = bytes < 0 ? Number.NaN : bytes;
    this.memKinds.at(i)[i] = detailsMemKinds(details);
    // 0 is none (as in kineto); the op table holds 32-bit ids.
    const corr = intOr(e.correlation, -1);
    this.corr.at(i)[i] = corr >= 1 && corr <= maxCorrelationId ? corr : -1;
    this.launch.at(i)[i] =
      typeof e.kernelDetails === 'string' ? this.launchOf(e.kernelDetails) : noRef;
    this.lastNs = Math.max(this.lastNs, ph === 'X' ? endNs : startNs);
    return i;
  }

  /**
   * An end (E) event at `atNs` on track `t`: it ends the innermost open begin (B), or, when it
   * names one (`nameRef` ≥ 0), the innermost open begin of that name, and with it every begin
   * opened inside it (ranges nest). A named end that no open begin has the name of is ignored.
   */
  private end(t: number, atNs: number, nameRef: number): void {
    const open = this.open[t]!;
    let early = this.endedEarly[t];
    if (early !== undefined && early.atNs !== atNs) {
      early = this.endedEarly[t] = undefined;
    }
    // Ends written in another order than their begins at one time ("E beta", "E gamma" for
    // "B beta", "B gamma"): the inner begin already ended with the outer one.
    const k = early !== undefined && nameRef >= 0 ? early.names.indexOf(nameRef) : -1;
    if (k >= 0) {
      early!.names.splice(k, 1);
      if (early!.names.length === 0) {
        this.endsPastInner -= early!.closes;
        this.endedEarly[t] = undefined;
      }
      return;
    }
    let at = open.length - 1;
    if (nameRef >= 0) {
      while (at >= 0 && this.nameRef.data[open[at]!] !== nameRef) {
        at--;
      }
    }
    if (at < 0) {
      this.unmatchedEnds++;
      return;
    }
    if (at < open.length - 1) {
      this.endsPastInner++;
      const names = open.slice(at + 1).map((begin) => this.nameRef.data[begin]!);
      if (early === undefined) {
        this.endedEarly[t] = { atNs, names, closes: 1 };
      } else {
        early.names.push(...names);
        early.closes++;
      }
    }
    for (let j = open.length - 1; j >= at; j--) {
      const begin = open[j]!;
      this.endNs.data[begin] = Math.max(atNs, this.startNs.data[begin]!);
    }
    open.length = at;
  }

  /** Places every staged event on its track's lane as a GPU op or a host range. */
  emit(builder: TraceBuilder, meta: ChromeMetadata): GenericPlaced {
    if (this.async.count > 0) {
      this.placeAsync();
    }
    const placer = new TrackPlacer();
    const places = this.trackPid.map((pid, t) =>
      placer.place(pid, this.trackTid[t], builder, meta, this.asyncTracks.has(t)),
    );
    const boundFlows =
      this.flows.count === 0
        ? 0
        : this.flows.bind(
            this.n,
            this.startNs.data,
            this.endNs.data,
            this.track.data,
            this.corr.data,
            (t) => places[t]!.gpu,
          );
    const links = planGenericLinks(
      this.n,
      this.corr.data,
      this.startNs.data,
      this.track.data,
      places.length,
      (t) => places[t]!.gpu,
      (t) => places[t]!.proc,
    );
    places.forEach((place, t) => {
      const owner = links.ownerOfTrack[t]!;
      if (owner >= 0 && owner !== place.proc) {
        const lane = builder.lanes.gpuLane(owner, place.deviceId, 0, place.streamId);
        places[t] = { ...place, proc: owner, lane };
      }
    });
    const op = newStagedOp();
    let gpuOps = 0;
    let incomplete = 0;
    let unknownSizes = 0;
    let repeated = 0;
    for (let i = 0; i < this.n; i++) {
      const place = places[this.track.data[i]!]!;
      if (place.repeats === true) {
        repeated++;
        continue;
      }
      const startNs = this.startNs.data[i]!;
      const endNs = this.endNs.data[i]!;
      const corr = this.corr.data[i]!;
      if (links.launches[i] === 1) {
        clearStagedOp(op);
        op.kind = OpKind.ApiCall;
        op.proc = place.proc;
        op.lane = place.lane;
        op.startNs = startNs;
        op.endNs = Number.isNaN(endNs) ? startNs : endNs;
        op.nameRef = this.nameRef.data[i]!;
        op.correlationId = corr;
        builder.addOp(op);
        continue;
      }
      if (!place.gpu) {
        const catRef = this.catRef.data[i]!;
        // A begin with no end runs to the end of the trace (RangeStaging warns).
        builder.addRange(
          place.lane,
          startNs,
          Number.isNaN(endNs) ? -1 : endNs,
          this.nameRef.data[i]!,
          catRef,
          RangeKind.PushPop,
        );
        continue;
      }
      clearStagedOp(op);
      op.proc = place.proc;
      op.lane = place.lane;
      op.startNs = startNs;
      op.endNs = Number.isNaN(endNs) ? Math.max(this.lastNs, startNs) : endNs;
      if (Number.isNaN(endNs)) {
        op.flags |= OpFlag.Incomplete;
        incomplete++;
      }
      op.nameRef = this.nameRef.data[i]!;
      op.kind = this.kind.data[i]!;
      op.correlationId = Math.max(0, corr);
      if (op.kind === OpKind.Kernel) {
        op.refId = this.launch.data[i]!;
      } else {
        op.memKinds = this.memKinds.data[i]!;
        const bytes = this.bytes.data[i]!;
        op.bytes = Number.isNaN(bytes) ? 0 : bytes;
        if (Number.isNaN(bytes)) {
          op.flags |= OpFlag.BytesUnknown;
          unknownSizes++;
        }
      }
      builder.addOp(op);
      gpuOps++;
    }
    if (incomplete > 0) {
      builder.warnings.add(
        `${incomplete} GPU begin (B) events have no end (E); drawn to the last time in the trace`,
      );
    }
    if (unknownSizes > 0) {
      builder.warnings.add(
        `${unknownSizes} copies or memsets carry no size (args.bytes or args.size); their bandwidth is unknown`,
      );
    }
    if (repeated > 0) {
      builder.warnings.add(
        `not drawn: ${counted(repeated, 'event')} on TensorFlow's /gpu:N/stream:all and /gpu:N/memcpy rows, which repeat the stream rows' kernels and copies`,
      );
    }
    if (this.unmatchedEnds > 0) {
      builder.warnings.add(
        `${counted(this.unmatchedEnds, 'end (E) event')} with no open begin (B) to end on its thread (of its name, where it has one); ignored`,
      );
    }
    if (this.async.unmatchedEnds > 0) {
      builder.warnings.add(
        `${counted(this.async.unmatchedEnds, 'async end event')} (ph e/F) with no begin of its id; ignored`,
      );
    }
    if (this.endsPastInner > 0) {
      builder.warnings.add(
        `${counted(this.endsPastInner, 'end (E) event')} naming a begin (B) that is not the innermost open one on its thread; the begins inside it end with it`,
      );
    }
    // Host threads that hold events (a track of flow events alone is none).
    const held = new Uint8Array(places.length);
    for (let i = 0; i < this.n; i++) {
      held[this.track.data[i]!] = 1;
    }
    const hostTracks = places.filter(
      (p, t) => !p.gpu && p.repeats !== true && held[t] === 1 && !this.asyncTracks.has(t),
    ).length;
    return { gpuOps, hostTracks, flowsNotDrawn: this.flows.count - boundFlows };
  }

  private trackOf(pid: unknown, tid: unknown): number {
    const key = `${idKey(pid)}\u0000${idKey(tid)}`;
    let t = this.trackIndex.get(key);
    if (t === undefined) {
      t = this.trackPid.length;
      this.trackIndex.set(key, t);
      this.trackPid.push(pid);
      this.trackTid.push(tid);
      this.open.push([]);
      if (pid === 'CPU functions' || pid === 'CUDA functions') {
        this.sawLegacy = true;
      }
    }
    return t;
  }

  /**
   * The launch configuration of XLA's kernel_details ("regs:168 static_shared:0
   * dynamic_shared:231424 grid:64,2,1 block:384,1,1 occ_pct:100"), or noRef without a grid.
   */
  private launchOf(details: string): number {
    let ref = this.launchByDetails.get(details);
    if (ref === undefined) {
      ref = parseLaunch(details, this.launches);
      if (this.launchByDetails.size < maxCachedDetails) {
        this.launchByDetails.set(details, ref);
      }
    }
    return ref;
  }
}
