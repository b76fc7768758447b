import type { LaunchTable } from '@streamscope/trace';
import { MemKind, OpFlag, OpKind, RangeKind, noRef, packMemKinds } from '@streamscope/trace';
import { clearStagedOp, newStagedOp } from '../op-staging.ts';
import { StagingColumn } from '../staging-columns.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import type { ChromeEvent } from './chrome-event.ts';
import type { ChromeMetadata } from './chrome-metadata.ts';
import { deviceNamedBy, idKey, intOr, streamNamedBy, trailingNumber } from './chrome-metadata.ts';
import type { EventTimes } from './event-times.ts';
import { GenericFlows, maxCorrelationId, planGenericLinks } from './generic-links.ts';
import { counted } from '../warnings.ts';

// Ids for string pids and tids that end in no number, above any real pid or tid.
const syntheticIdBase = 0x40000000;

interface TrackPlace {
  readonly gpu: boolean;
  readonly proc: number;
  readonly lane: number;
  /** A GPU track's device and stream (0 for a host track). */
  readonly deviceId: number;
  readonly streamId: number;
  /** A row that repeats other rows' events (TensorFlow's "/gpu:0/stream:all"): not drawn. */
  readonly repeats?: boolean;
}

/**
 * TensorFlow 1.x timelines (tf.python.client.timeline) name a process per device row:
 * "/job:localhost/replica:0/task:0/gpu:0 Compute" is the executor's view of the ops it ran for
 * the GPU (host time), "/gpu:0/stream:12 Compute" a stream, while "/gpu:0/stream:all" and
 * "/gpu:0/memcpy" repeat the kernels and copies of the stream rows.
 */
const tensorFlowExecutorRow = /^\/job:[^ ]*\/(?:device:)?gpu:\d+ /i;
const tensorFlowRepeatRow = /^\/(?:device:)?gpu:\d+\/(?:stream:all|memcpy)\b/i;

/** What `emit` placed. */
export interface GenericPlaced {
  readonly gpuOps: number;
  /** Host events that launched GPU work (same correlation id): placed as API calls. */
  readonly launches: number;
  /** Flow events that drew no launch (between two host events, say): not drawn. */
  readonly flowsNotDrawn: number;
  readonly hostRanges: number;
  readonly hostTracks: number;
}

/**
 * Chrome trace events that no profiler-specific mapping reads (nsys-to-Chrome converters, the
 * legacy autograd profiler, any chrome://tracing writer): every complete (X) or begin/end (B/E)
 * event on a track per (pid, tid). A track whose process names a GPU ("Device 0", "GPU 1", or a
 * `process_labels` saying so) or whose thread names a stream ("stream 7", "CUDA stream 13") is
 * a GPU stream and its events are kernels, or copies and memsets by name; every other track is a
 * host thread and its events are ranges. Metadata may come last, so events are staged in
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
  private flowsUnread = 0;
  /** Launch configurations by kernel_details text (XLA repeats them per kernel). */
  private readonly launchByDetails = new Map<string, number>();
  unmatchedEnds = 0;
  /** Named ends that closed an open begin with begins still open inside it. */
  private endsPastInner = 0;
  /** Per track, the begins the last such end closed with it, and its time (see `end`). */
  private readonly endedEarly: ({ atNs: number; names: number[] } | undefined)[] = [];
  sawLegacy = false;

  get count(): number {
    return this.n;
  }

  /** A flow event (s, t, f), its time already read into `times`. */
  flow(e: ChromeEvent, ph: string, times: EventTimes): void {
    const flowId = e.flowId();
    if (ph === 't' || flowId === undefined) {
      this.flowsUnread++; // steps, and flows with no id to pair their ends by
      return;
    }
    const id = `${e.cat ?? ''}\u0000${idKey(flowId)}`;
    const t = this.trackOf(e.pid, e.tid);
    this.flows.add(id, t, times.startNs, ph === 's', e.bindsEnclosing());
  }

  /** One X, B or E event, its times already read into `times`. */
  add(e: ChromeEvent, ph: string, times: EventTimes, name: (value: string) => number): void {
    const t = this.trackOf(e.pid, e.tid);
    const startNs = times.startNs;
    if (ph === 'E') {
      this.end(t, startNs, e.name === undefined || e.name === '' ? -1 : name(e.name));
      this.lastNs = Math.max(this.lastNs, startNs);
      return;
    }
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
    if (ph === 'B') {
      this.open[t]!.push(i);
    }
    this.lastNs = Math.max(this.lastNs, ph === 'X' ? endNs : startNs);
  }

  /**
   * An end (E) event at `atNs` on track `t`: it ends the innermost open begin (B), or, when it
   * names one (`nameRef` ≥ 0), the innermost open begin of that name, and with it every begin
   * opened inside it (ranges nest). A named end that no open begin has the name of is ignored.
   */
  private end(t: number, atNs: number, nameRef: number): void {
    const open = this.open[t]!;
    let at = open.length - 1;
    if (nameRef >= 0) {
      while (at >= 0 && this.nameRef.data[open[at]!] !== nameRef) {
        at--;
      }
    }
    const early = this.endedEarly[t];
    if (early !== undefined && early.atNs !== atNs) {
      this.endedEarly[t] = undefined;
    }
    if (at < 0) {
      // Ends written in another order than their begins at one time ("E beta", "E gamma" for
      // "B beta", "B gamma"): the inner begin already ended with the outer one.
      const k = early !== undefined && early.atNs === atNs ? early.names.indexOf(nameRef) : -1;
      if (k >= 0) {
        early!.names.splice(k, 1);
        if (early!.names.length === 0) {
          this.endsPastInner--;
          this.endedEarly[t] = undefined;
        }
        return;
      }
      this.unmatchedEnds++;
      return;
    }
    if (at < open.length - 1) {
      this.endsPastInner++;
      this.endedEarly[t] = {
        atNs,
        names: open.slice(at + 1).map((begin) => this.nameRef.data[begin]!),
      };
    }
    for (let k = open.length - 1; k >= at; k--) {
      const begin = open[k]!;
      this.endNs.data[begin] = Math.max(atNs, this.startNs.data[begin]!);
    }
    open.length = at;
  }

  /** Places every staged event on its track's lane as a GPU op or a host range. */
  emit(builder: TraceBuilder, meta: ChromeMetadata): GenericPlaced {
    const places = this.trackPid.map((_, t) => this.place(t, builder, meta));
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
    let hostRanges = 0;
    let incomplete = 0;
    let unknownSizes = 0;
    let repeated = 0;
    let launches = 0;
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
        launches++;
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
        hostRanges++;
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
      (p, t) => !p.gpu && p.repeats !== true && held[t] === 1,
    ).length;
    const flowsNotDrawn = this.flows.count - boundFlows + this.flowsUnread;
    return { gpuOps, hostRanges, hostTracks, launches, flowsNotDrawn };
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
      ref = this.parseLaunch(details);
      if (this.launchByDetails.size < maxCachedDetails) {
        this.launchByDetails.set(details, ref);
      }
    }
    return ref;
  }

  private parseLaunch(details: string): number {
    const grid = gridPattern.exec(details);
    const block = blockPattern.exec(details);
    if (grid === null || block === null) {
      return noRef;
    }
    const field = (pattern: RegExp): number => Number(pattern.exec(details)?.[1] ?? 0);
    return this.launches.internFields(
      Number(grid[1]),
      Number(grid[2]),
      Number(grid[3]),
      Number(block[1]),
      Number(block[2]),
      Number(block[3]),
      field(staticSharedPattern) + field(dynamicSharedPattern),
      field(registersPattern),
    );
  }

  /** Decides a track's kind from its names and makes its process and lane. */
  private place(t: number, builder: TraceBuilder, meta: ChromeMetadata): TrackPlace {
    const pid = this.trackPid[t];
    const tid = this.trackTid[t];
    const pidKey = idKey(pid);
    const tidKey = idKey(tid);
    const pidText = typeof pid === 'string' ? pid : undefined;
    const tidText = typeof tid === 'string' ? tid : undefined;
    const processName = meta.processName(pidKey) ?? pidText ?? '';
    const threadName = meta.threadName(pidKey, tidKey) ?? tidText;
    const proc = builder.lanes.processFor(`chrome:${pidKey}`, this.pidNumber(pid, pidKey));
    builder.lanes.nameProcess(proc, processName);
    if (tensorFlowRepeatRow.test(processName)) {
      return { gpu: false, proc, lane: -1, deviceId: 0, streamId: 0, repeats: true };
    }
    // The legacy autograd profiler puts kernels under "CUDA functions", tid = device, no streams.
    const legacyGpu = pid === 'CUDA functions';
    let device: number | undefined;
    let stream: number | undefined;
    if (legacyGpu) {
      device = intOr(tid, 0);
      stream = 0;
    } else if (!tensorFlowExecutorRow.test(processName)) {
      device =
        deviceNamedBy(pidText) ??
        deviceNamedBy(meta.processName(pidKey)) ??
        deviceNamedBy(meta.processLabel(pidKey));
      stream = streamNamedBy(tidText) ?? streamNamedBy(threadName) ?? streamNamedBy(processName);
    }
    if (device === undefined && stream === undefined) {
      const lane = builder.lanes.hostLane(proc, this.hostTid(tid, `${pidKey}\u0000${tidKey}`));
      if (threadName !== undefined) {
        builder.lanes.nameLane(lane, threadName);
      }
      return { gpu: false, proc, lane, deviceId: 0, streamId: 0 };
    }
    const deviceId = device ?? intOr(pid, 0);
    const streamId =
      stream ?? (tidText === undefined ? intOr(tid, 0) : (trailingNumber(tidText) ?? 0));
    const lane = builder.lanes.gpuLane(proc, deviceId, 0, streamId);
    if (legacyGpu) {
      builder.lanes.nameLane(lane, `GPU ${deviceId} (legacy profiler: no streams)`);
    }
    return { gpu: true, proc, lane, deviceId, streamId };
  }

  private readonly syntheticIds = new Map<string, number>();

  /** A number pid as is; a string's trailing number ("Device 1" → 1), else an id of its own. */
  private pidNumber(value: unknown, key: string): number {
    const trailing = typeof value === 'string' ? trailingNumber(value) : undefined;
    return trailing !== undefined && Number.isSafeInteger(trailing)
      ? trailing
      : this.hostTid(value, key);
  }

  /**
   * A number tid as is, also one written as a string; any other string gets an id of its own (it
   * names the thread): two threads "Worker 1" and "Loader 1" stay two lanes.
   */
  private hostTid(value: unknown, key: string): number {
    if (typeof value === 'number' && Number.isSafeInteger(value)) {
      return value;
    }
    // A number written as a string ("tid": "1087077", as AMD's RPD converter writes them).
    if (typeof value === 'string' && /^\d{1,15}$/.test(value)) {
      return Number(value);
    }
    let id = this.syntheticIds.get(key);
    if (id === undefined) {
      id = syntheticIdBase + this.syntheticIds.size;
      this.syntheticIds.set(key, id);
    }
    return id;
  }
}

// XLA's kernel_details, e.g. "regs:168 static_shared:0 dynamic_shared:231424 grid:64,2,1
// block:384,1,1 occ_pct:100" (numbers of up to 9 digits: the launch table's are 32-bit).
const gridPattern = /(?:^|\s)grid:(\d{1,9}),(\d{1,9}),(\d{1,9})(?:\s|$)/;
const blockPattern = /(?:^|\s)block:(\d{1,9}),(\d{1,9}),(\d{1,9})(?:\s|$)/;
const staticSharedPattern = /(?:^|\s)static_shared:(\d{1,9})(?:\s|$)/;
const dynamicSharedPattern = /(?:^|\s)dynamic_shared:(\d{1,9})(?:\s|$)/;
const registersPattern = /(?:^|\s)regs:(\d{1,9})(?:\s|$)/;
/** Distinct kernel_details texts whose launch is remembered (a file has few). */
const maxCachedDetails = 4096;

const memKindByDetail: Record<string, MemKind> = {
  device: MemKind.Device,
  pinned: MemKind.Pinned,
  pageable: MemKind.Pageable,
  managed: MemKind.Managed,
  array: MemKind.Array,
};

/** The `size:N` of XLA's memcpy_details ("kind_src:device kind_dst:pinned size:4 …"); -1: none. */
function detailsSize(details: string): number {
  const m = /(?:^|\s)size:(\d{1,15})(?:\s|$)/.exec(details);
  return m === null ? -1 : Number(m[1]);
}

/** The packed memory kinds of memcpy_details' kind_src and kind_dst (Unknown where unsaid). */
function detailsMemKinds(details: string): number {
  if (details === '') {
    return 0;
  }
  const src = /(?:^|\s)kind_src:(\w+)/.exec(details)?.[1];
  const dst = /(?:^|\s)kind_dst:(\w+)/.exec(details)?.[1];
  return packMemKinds(
    memKindByDetail[src ?? ''] ?? MemKind.Unknown,
    memKindByDetail[dst ?? ''] ?? MemKind.Unknown,
  );
}

/** A GPU event's kind by its name: memsets, copies (direction by name), else kernels. */
export function gpuKindOf(name: string): number {
  // ROCm's tracers (rocprof, RPD) name fills FillBuffer and copies CopyHostToDevice, ….
  if (/memset|^FillBuffer$/i.test(name)) {
    return OpKind.Memset;
  }
  if (!/mem\s*cpy|memcopy|^Copy(?:Host|Device|Peer)To(?:Host|Device|Peer)$/i.test(name)) {
    return OpKind.Kernel;
  }
  if (/HtoD|H2D|host\s*to\s*device/i.test(name)) {
    return OpKind.CopyHtoD;
  }
  if (/DtoH|D2H|device\s*to\s*host/i.test(name)) {
    return OpKind.CopyDtoH;
  }
  if (/PtoP|P2P|peer/i.test(name)) {
    return OpKind.CopyPtoP;
  }
  if (/HtoH|H2H|host\s*to\s*host/i.test(name)) {
    return OpKind.CopyHtoH;
  }
  return OpKind.CopyDtoD;
}
