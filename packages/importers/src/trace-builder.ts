import type { DeviceInfo, LaunchTable, TraceMeta } from '@streamscope/trace';
import { FlowKind, OpFlag, OpKind, Trace, isCopyKind, noRef } from '@streamscope/trace';
import { CorrelationIndex } from './correlation-index.ts';
import { linkEventRecords } from './event-links.ts';
import { LaneRegistry } from './lane-registry.ts';
import { RangeStaging } from './range-staging.ts';
import { StagingColumn } from './staging-columns.ts';
import { Warnings } from './warnings.ts';

/** One GPU or host op as an importer hands it over. Reuse one object; the builder keeps none. */
export interface StagedOp {
  kind: number;
  startNs: number;
  endNs: number;
  /** Index from `processFor()`. */
  proc: number;
  /** Index from `gpuLane()` or `hostLane()`. */
  lane: number;
  /** `name()` result: a trace string id (≥ 0) or a deferred source string (< 0). */
  nameRef: number;
  bytes: number;
  memKinds: number;
  correlationId: number;
  refId: number;
  flags: number;
  /** Event id and sync id for event records, waits and event syncs; NaN when none. */
  eventId: number;
  eventSyncId: number;
}

export function newStagedOp(): StagedOp {
  return {
    kind: 0,
    startNs: 0,
    endNs: 0,
    proc: 0,
    lane: 0,
    nameRef: 0,
    bytes: 0,
    memKinds: 0,
    correlationId: 0,
    refId: noRef,
    flags: 0,
    eventId: Number.NaN,
    eventSyncId: Number.NaN,
  };
}

/**
 * Collects ops, lanes and ranges from any importer, then builds the trace in one go: joins API
 * calls to GPU ops by (process, correlation id), event records to waits, resolves names that
 * arrive after the events (nsys JSON layouts differ in where the string table is), and moves
 * every time to a common origin. Memory grows with the ops kept, never with the input size.
 */
export class TraceBuilder {
  readonly warnings = new Warnings();
  private readonly trace: Trace;
  private n = 0;
  private capacity = 1024;
  private readonly startNs = new StagingColumn(Float64Array);
  private readonly endNs = new StagingColumn(Float64Array);
  private readonly bytes = new StagingColumn(Float64Array);
  private readonly eventId = new StagingColumn(Float64Array);
  private readonly eventSyncId = new StagingColumn(Float64Array);
  private readonly lane = new StagingColumn(Uint32Array);
  private readonly proc = new StagingColumn(Uint32Array);
  private readonly nameRef = new StagingColumn(Int32Array);
  private readonly corr = new StagingColumn(Uint32Array);
  private readonly refId = new StagingColumn(Uint32Array);
  private readonly kind = new StagingColumn(Uint8Array);
  private readonly memKinds = new StagingColumn(Uint8Array);
  private readonly flags = new StagingColumn(Uint8Array);

  /** Processes, GPU stream lanes and host thread lanes, by the source's keys. */
  readonly lanes = new LaneRegistry();
  private readonly sourceStrings: (string | undefined)[] = [];
  private readonly devices = new Map<number, DeviceInfo>();

  private readonly ranges = new RangeStaging();

  /** Record→wait links that the source states directly (kineto): wait op → record correlation. */
  private readonly waitOnCorrelation = new Map<number, number>();

  constructor(meta: Partial<TraceMeta>) {
    this.trace = new Trace(meta);
  }

  get opCount(): number {
    return this.n;
  }

  get rangeCount(): number {
    return this.ranges.count;
  }

  /** Pre-sizes the op staging for about `ops` ops (a hint: it still grows past it). */
  reserve(ops: number): void {
    if (ops > this.capacity) {
      this.capacity = Math.ceil(ops);
      for (const column of this.opColumns()) {
        column.resize(this.capacity);
      }
    }
  }

  /** Kernel launch configurations go straight into the trace. */
  launchTable(): LaunchTable {
    return this.trace.launches;
  }

  /** A literal name as a name ref. */
  name(value: string): number {
    return this.trace.strings.intern(value);
  }

  /** A string that the source names by index, resolved when the trace is built. */
  sourceName(index: number): number {
    return -(index + 1);
  }

  setSourceString(index: number, value: string): void {
    this.sourceStrings[index] = value;
  }

  addDevice(device: DeviceInfo): void {
    this.devices.set(device.deviceId, device);
  }

  addOp(op: StagedOp): number {
    const i = this.n;
    if (i >= this.capacity) {
      this.capacity *= 2;
      for (const column of this.opColumns()) {
        column.resize(this.capacity);
      }
    }
    this.startNs.data[i] = op.startNs;
    this.endNs.data[i] = op.endNs;
    this.bytes.data[i] = op.bytes;
    this.eventId.data[i] = op.eventId;
    this.eventSyncId.data[i] = op.eventSyncId;
    this.lane.data[i] = op.lane;
    this.proc.data[i] = op.proc;
    this.nameRef.data[i] = op.nameRef;
    this.corr.data[i] = op.correlationId;
    this.refId.data[i] = op.refId;
    this.kind.data[i] = op.kind;
    this.memKinds.data[i] = op.memKinds;
    this.flags.data[i] = op.flags;
    this.n = i + 1;
    return i;
  }

  private opColumns(): StagingColumn<Float64Array | Int32Array | Uint32Array | Uint8Array>[] {
    return [
      this.startNs,
      this.endNs,
      this.bytes,
      this.eventId,
      this.eventSyncId,
      this.lane,
      this.proc,
      this.nameRef,
      this.corr,
      this.refId,
      this.kind,
      this.memKinds,
      this.flags,
    ];
  }

  /** A range on a host lane; `endNs` < 0 when it never ended. */
  addRange(
    lane: number,
    startNs: number,
    endNs: number,
    nameRef: number,
    domainRef: number,
    kind: number,
  ): void {
    this.ranges.add(lane, startNs, endNs, nameRef, domainRef, kind);
  }

  /** The source says which record (by its API call's correlation id) a wait waited on. */
  waitsOnRecordCall(waitOp: number, recordCorrelationId: number): void {
    this.waitOnCorrelation.set(waitOp, recordCorrelationId);
  }

  /** Builds the trace. `originNs` is subtracted from every time (default: the earliest). */
  build(meta: Partial<TraceMeta> = {}): Trace {
    const trace = this.trace;
    const apiByCorr = this.indexApiCalls();
    this.placeUntimedRecords(apiByCorr);
    const originNs = this.earliestNs();
    const used = new Uint8Array(this.lanes.count);
    for (let i = 0; i < this.n; i++) {
      used[this.lane.data[i]!] = 1;
    }
    this.ranges.markLanes(used);
    const trackOf = this.lanes.addTracks(trace, used, (ref) => this.resolveText(ref));
    this.addDevices(trace);
    const n = this.n;
    const kinds = this.kind.data;
    const corr = this.corr.data;
    const proc = this.proc.data;
    const lanes = this.lane.data;
    const starts = this.startNs.data;
    const ends = this.endNs.data;
    const nameRefs = this.nameRef.data;
    const startNs = new Float64Array(n);
    const endNs = new Float64Array(n);
    const track = new Uint16Array(n);
    const nameId = new Uint32Array(n);
    const flags = this.flags.data.slice(0, n);
    const apiOf = new Int32Array(n);
    let orphans = 0;
    let lastRef = 0;
    let lastId = 0;
    for (let i = 0; i < n; i++) {
      const kind = kinds[i]!;
      const api = corr[i] !== 0 && kind !== OpKind.ApiCall ? apiByCorr.get(proc[i]!, corr[i]!) : -1;
      apiOf[i] = api;
      if (kind !== OpKind.ApiCall && kind !== OpKind.HostWork) {
        if (api < 0 && apiByCorr.hasProcess(proc[i]!)) {
          flags[i] = flags[i]! | OpFlag.Orphan;
          orphans++;
        } else if (
          api >= 0 &&
          (isCopyKind(kind) || kind === OpKind.Memset) &&
          this.isSyncApi(api)
        ) {
          flags[i] = flags[i]! | OpFlag.Sync;
        }
      }
      startNs[i] = starts[i]! - originNs;
      endNs[i] = Math.max(ends[i]!, starts[i]!) - originNs;
      track[i] = trackOf[lanes[i]!]!;
      const ref = nameRefs[i]!;
      if (i === 0 || ref !== lastRef) {
        lastRef = ref;
        lastId = this.resolveName(ref);
      }
      nameId[i] = lastId;
    }
    // One bulk copy per column instead of a call per op.
    trace.ops.appendColumns(
      {
        startNs,
        endNs,
        bytes: this.bytes.data,
        track,
        nameId,
        correlationId: corr,
        refId: this.refId.data,
        kind: kinds,
        memKinds: this.memKinds.data,
        flags,
      },
      n,
    );
    trace.version++;
    for (let i = 0; i < n; i++) {
      if (apiOf[i]! >= 0) {
        trace.flows.append(apiOf[i]!, i, FlowKind.ApiToGpu);
      }
    }
    if (orphans > 0) {
      this.warnings.add(
        `${orphans} GPU operations have no matching API call (kept, flagged orphan)`,
      );
    }
    linkEventRecords(
      {
        count: n,
        kind: kinds,
        proc,
        corr,
        eventId: this.eventId.data,
        eventSyncId: this.eventSyncId.data,
      },
      this.waitOnCorrelation,
      apiByCorr,
      trace.flows,
      this.warnings,
    );
    this.ranges.appendTo(
      trace,
      trackOf,
      originNs,
      trace.ops.maxEndNs + originNs,
      (ref) => this.resolveName(ref),
      this.warnings,
    );
    const firstProcess = this.lanes.firstNamedProcess();
    trace.meta = {
      ...trace.meta,
      ...meta,
      title: trace.meta.title !== 'untitled' ? trace.meta.title : (firstProcess?.name ?? 'import'),
      originNs: addDecimal(trace.meta.originNs, originNs),
      warnings: this.warnings.list(),
    };
    return trace;
  }

  private isSyncApi(apiOp: number): boolean {
    const ref = this.nameRef.data[apiOp]!;
    const name = this.resolveText(ref);
    return /^(cuda|cu)Mem(cpy|set)/.test(name) && !name.includes('Async');
  }

  /** (process, correlation id) → the API op. */
  private indexApiCalls(): CorrelationIndex {
    const kind = this.kind.data;
    const corr = this.corr.data;
    return new CorrelationIndex(
      this.proc.data,
      corr,
      (i) => kind[i] === OpKind.ApiCall && corr[i] !== 0,
      this.n,
    );
  }

  /** nsys writes event records with time 0 unless device timestamps were taken: put them at their API call. */
  private placeUntimedRecords(apiByCorr: CorrelationIndex): void {
    let unplaced = 0;
    for (let i = 0; i < this.n; i++) {
      if (this.kind.data[i] !== OpKind.EventRecord || this.startNs.data[i] !== 0) {
        continue;
      }
      const api = apiByCorr.get(this.proc.data[i]!, this.corr.data[i]!);
      if (api < 0) {
        unplaced++;
        this.startNs.data[i] = Number.NaN; // dropped from the origin; placed at the origin
        this.endNs.data[i] = Number.NaN;
      } else {
        this.startNs.data[i] = this.endNs.data[api]!;
        this.endNs.data[i] = this.endNs.data[api]!;
      }
    }
    if (unplaced > 0) {
      this.warnings.add(`${unplaced} event records have no time and no API call; drawn at time 0`);
    }
  }

  private earliestNs(): number {
    let min = Infinity;
    for (let i = 0; i < this.n; i++) {
      const s = this.startNs.data[i]!;
      if (s < min) {
        min = s;
      }
    }
    min = Math.min(min, this.ranges.earliestNs());
    if (!Number.isFinite(min)) {
      return 0;
    }
    for (let i = 0; i < this.n; i++) {
      if (Number.isNaN(this.startNs.data[i]!)) {
        this.startNs.data[i] = min;
        this.endNs.data[i] = min;
      }
    }
    return min;
  }

  private addDevices(trace: Trace): void {
    const seen = this.lanes.deviceIds();
    for (const id of [...new Set([...seen, ...this.devices.keys()])].sort((a, b) => a - b)) {
      trace.addDevice(this.devices.get(id) ?? { deviceId: id, name: `GPU ${id}` });
    }
  }

  private resolveName(ref: number): number {
    return ref >= 0 ? ref : this.trace.strings.intern(this.resolveText(ref));
  }

  private resolveText(ref: number): string {
    if (ref >= 0) {
      return this.trace.strings.get(ref);
    }
    const index = -ref - 1;
    const value = this.sourceStrings[index];
    if (value === undefined) {
      this.warnings.add(
        'names refer to string indices missing from the string table (shown as "string #N")',
      );
      return `string #${index}`;
    }
    return value;
  }
}

/** a + b for a decimal int64 string and a safe integer. */
function addDecimal(a: string, b: number): string {
  return (BigInt(a) + BigInt(Math.round(b))).toString();
}
