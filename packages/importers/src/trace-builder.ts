import type { DeviceInfo, LaunchTable, TraceMeta } from '@streamscope/trace';
import { OpKind, Trace } from '@streamscope/trace';
import { CorrelationIndex } from './correlation-index.ts';
import { joinApiCalls, resolveNameIds, usedLanes } from './finish-op-loops.ts';
import { IdHashMap } from './id-hash-map.ts';
import { linkEventRecords } from './event-links.ts';
import { LaneRegistry } from './lane-registry.ts';
import type { StagedOp } from './op-staging.ts';
import { OpLimitReached, OpStaging } from './op-staging.ts';
import { RangeStaging } from './range-staging.ts';
import { SourceStrings } from './source-strings.ts';
import { Warnings } from './warnings.ts';

/** What `TraceBuilder.stagedColumns` lends: columns indexed by staged op. */
export interface StagedColumns {
  readonly lane: Uint32Array;
  readonly corr: Uint32Array;
  readonly startNs: Float64Array;
}

/** A streamed source projects its ops once this much of it is read (or a 32nd of it, if less). */
const projectAfterBytes = 32 << 20;

/**
 * Collects ops, lanes and ranges from any importer, then builds the trace in one go: joins API
 * calls to GPU ops by (process, correlation id), event records to waits, resolves names that
 * arrive after the events (nsys JSON layouts differ in where the string table is), and moves
 * every time to a common origin. Memory grows with the ops kept, never with the input size.
 */
export class TraceBuilder {
  readonly warnings = new Warnings();
  private readonly trace: Trace;
  private readonly ops = new OpStaging();
  private built = false;

  /** Processes, GPU stream lanes and host thread lanes, by the source's keys. */
  readonly lanes = new LaneRegistry();
  private readonly sourceStrings: SourceStrings;
  private readonly devices = new Map<number, DeviceInfo>();

  private readonly ranges = new RangeStaging();
  /** Staged ops whose process differs from their lane's, op → its process: our importers stage none. */
  private readonly procExceptions = new IdHashMap();
  private checkedLane = -1;
  private checkedLaneProc = -1;

  /** Record→wait links that the source states directly (kineto): wait op → record correlation. */
  private readonly waitOnCorrelation = new Map<number, number>();

  constructor(meta: Partial<TraceMeta>) {
    this.trace = new Trace(meta);
    this.sourceStrings = new SourceStrings(this.trace.strings, this.warnings);
  }

  get opCount(): number {
    return this.ops.count;
  }

  get rangeCount(): number {
    return this.ranges.count;
  }

  /** The most ops it keeps: one more fails the import with OpLimitReached (no limit by default). */
  /** The most ops and ranges kept together (memory follows both): one more is OpLimitReached. */
  get maxOps(): number {
    return this.ops.maxOps;
  }

  /** Limits the ops and ranges it keeps, together, to `records` (the staging's room too). */
  set maxOps(records: number) {
    this.ops.maxOps = records;
  }

  /** Pre-sizes the op staging for about `ops` ops (a hint: it still grows past it). */
  reserve(ops: number): void {
    this.ops.reserve(ops);
  }

  /** Ops the staging holds before it grows. */
  get opRoom(): number {
    return this.ops.room;
  }

  /**
   * Re-sizes the op and range staging from how far a streamed source is: once the ops staged
   * from the first `doneBytes` of `totalBytes` project past the room, the room becomes that
   * projection and a tenth more. One copy of the few ops staged so far, early, instead of
   * doubling late (a copy of them all) and trimming the overshoot at build (another); a tenth is
   * within what `fit` keeps. Not before a 32nd of the source (or 32 MiB) is read: a file's first
   * MiB is its densest (string tables, a run's first steps), and the 1M-GPU-op nsys JSON export's
   * projected 14% too many ops from it, past what `fit` keeps: a copy of every column at build.
   */
  projectOps(doneBytes: number, totalBytes: number): void {
    if (doneBytes < Math.min(totalBytes / 32, projectAfterBytes) || doneBytes >= totalBytes) {
      return;
    }
    const projected = (this.ops.count * totalBytes) / doneBytes;
    if (projected > this.ops.room) {
      this.ops.reserve(projected + projected / 10);
    }
    // Ranges alike (kineto's CPU ops and Python functions outnumber its GPU ops): doubling
    // copies them all and touches fresh pages each time.
    const projectedRanges = (this.ranges.count * totalBytes) / doneBytes;
    if (projectedRanges > this.ranges.room) {
      this.ranges.reserve(projectedRanges + projectedRanges / 10);
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
    return this.sourceStrings.ref(index);
  }

  setSourceString(index: number, value: string): void {
    this.sourceStrings.set(index, value);
  }

  addDevice(device: DeviceInfo): void {
    this.devices.set(device.deviceId, device);
  }

  addOp(op: StagedOp): number {
    this.checkRoomForOne();
    const i = this.ops.add(op);
    // Ops mostly repeat the last lane: its process is looked up once per run.
    if (op.lane !== this.checkedLane) {
      this.checkedLane = op.lane;
      this.checkedLaneProc = this.lanes.laneProc(op.lane);
    }
    if (op.proc !== this.checkedLaneProc) {
      this.procExceptions.set(i, op.proc);
    }
    return i;
  }

  /** Throws OpLimitReached when one more op or range would pass the limit. */
  private checkRoomForOne(): void {
    if (this.ops.count + this.ranges.count >= this.ops.maxOps) {
      throw new OpLimitReached(this.ops.maxOps);
    }
  }

  /** Moves staged op `op` to another process and lane: for sources that learn its owner later. */
  moveOp(op: number, proc: number, lane: number): void {
    this.ops.join();
    this.ops.lane.data[op] = lane;
    if (proc !== this.lanes.laneProc(lane) || this.procExceptions.get(op) >= 0) {
      this.procExceptions.set(op, proc);
    }
  }

  /**
   * The staging's lanes, correlation ids and start times by op index, for an importer that links
   * ops once they are all read (kineto: calls to GPU ops). Read-only, and valid until the next
   * `addOp` (which may move the columns); `moveOp` writes the lane it reads.
   */
  stagedColumns(): StagedColumns {
    this.ops.join();
    return { lane: this.ops.lane.data, corr: this.ops.corr.data, startNs: this.ops.startNs.data };
  }

  /** Sets staged op `op`'s bytes and adds `flags` to its flags (a size learned from its API call). */
  setOpBytes(op: number, bytes: number, flags: number): void {
    this.ops.join();
    this.ops.bytes.data[op] = bytes;
    this.ops.flags.data[op] = this.ops.flags.data[op]! | flags;
  }

  /** Adds `flags` to staged op `op`'s flags. */
  addOpFlags(op: number, flags: number): void {
    this.ops.join();
    this.ops.flags.data[op] = this.ops.flags.data[op]! | flags;
  }

  /** Metadata the source states (its wall clock, its rank), kept in the built trace. */
  addMeta(meta: Pick<Partial<TraceMeta>, 'clockEpochNs' | 'distributed'>): void {
    this.trace.meta = { ...this.trace.meta, ...meta };
  }

  /** The source's times are relative to `baseNs` (ns since its zero): the trace's origin adds it. */
  offsetOrigin(baseNs: bigint): void {
    this.trace.meta = {
      ...this.trace.meta,
      originNs: (BigInt(this.trace.meta.originNs) + baseNs).toString(),
    };
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
    this.checkRoomForOne();
    this.ranges.add(lane, startNs, endNs, nameRef, domainRef, kind);
  }

  /** The source says which record (by its API call's correlation id) a wait waited on. */
  waitsOnRecordCall(waitOp: number, recordCorrelationId: number): void {
    this.waitOnCorrelation.set(waitOp, recordCorrelationId);
  }

  /** Builds the trace. `originNs` is subtracted from every time (default: the earliest). */
  build(meta: Partial<TraceMeta> = {}): Trace {
    if (this.built) {
      throw new Error('a TraceBuilder builds once: its staging is released by build()');
    }
    this.built = true;
    this.ops.fit();
    const trace = this.trace;
    const { trackOf, originNs, track, nameId } = this.finishOps(trace);
    const n = this.ops.count;
    const columns = {
      startNs: this.ops.startNs.data,
      endNs: this.ops.endNs.data,
      bytes: this.ops.bytes.data,
      track,
      nameId,
      correlationId: this.ops.corr.data,
      refId: this.ops.refId.data,
      kind: this.ops.kind.data,
      memKinds: this.ops.memKinds.data,
      flags: this.ops.flags.data,
    };
    // An empty table takes the columns as they are (each held once at the peak of a big
    // import); one that already holds ops gets one bulk copy per column.
    if (trace.ops.count === 0) {
      trace.ops.adoptColumns(columns, n);
    } else {
      trace.ops.appendColumns(columns, n);
    }
    trace.version++;
    this.ops.releaseCopied();
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

  /**
   * Joins API calls to GPU ops (flows, orphan and sync flags), links event records to waits,
   * moves times to the origin and turns lanes into tracks and name refs into name ids, all in
   * the staging columns. The correlation index, lanes and processes are released on return, so
   * none of them is held while the op table indexes its tracks (the peak of a big import).
   */
  private finishOps(trace: Trace): {
    trackOf: Uint32Array;
    originNs: number;
    track: Uint16Array;
    nameId: Uint32Array;
  } {
    const procOf = this.procOf();
    const apiByCorr = this.indexApiCalls(procOf);
    this.placeUntimedRecords(apiByCorr, procOf);
    const originNs = this.earliestNs();
    const used = usedLanes(this.ops.lane.data, this.ops.count, this.lanes.count);
    this.ranges.markLanes(used);
    const trackOf = this.lanes.addTracks(trace, used, (ref) => this.resolveText(ref));
    this.addDevices(trace);
    const n = this.ops.count;
    const kinds = this.ops.kind.data;
    const corr = this.ops.corr.data;
    // Times and flags are finished in the staging columns themselves (no second copy of them
    // while the trace's own columns are filled); the staging is released once copied.
    const { track, orphans } = joinApiCalls(
      {
        count: n,
        kind: kinds,
        corr,
        lane: this.ops.lane.data,
        startNs: this.ops.startNs.data,
        endNs: this.ops.endNs.data,
        flags: this.ops.flags.data,
      },
      trace,
      apiByCorr,
      procOf,
      (api) => this.isSyncApi(api),
      trackOf,
      originNs,
    );
    // A pass of its own, after every isSyncApi read of an API op's name ref.
    const nameId = resolveNameIds(this.ops.nameRef.data, n, (ref) => this.resolveName(ref));
    if (orphans > 0) {
      this.warnings.add(
        `${orphans} GPU operations have no matching API call (kept, flagged orphan)`,
      );
    }
    linkEventRecords(
      {
        count: n,
        kind: kinds,
        procOf,
        corr,
        eventId: (op) => this.ops.eventId(op),
        eventSyncId: (op) => this.ops.eventSyncId(op),
      },
      this.waitOnCorrelation,
      apiByCorr,
      trace.flows,
      this.warnings,
    );
    this.ops.lane.release();
    return { trackOf, originNs, track, nameId };
  }

  private isSyncApi(apiOp: number): boolean {
    const ref = this.ops.nameRef.data[apiOp]!;
    const name = this.resolveText(ref);
    return /^(cuda|cu)Mem(cpy|set)/.test(name) && !name.includes('Async');
  }

  /** Op → its process: its lane's, or the exception noted when it was staged. */
  private procOf(): (op: number) => number {
    const laneProcs = new Uint32Array(this.lanes.count);
    for (let lane = 0; lane < laneProcs.length; lane++) {
      laneProcs[lane] = this.lanes.laneProc(lane);
    }
    const lanes = this.ops.lane.data;
    const exceptions = this.procExceptions;
    if (exceptions.size === 0) {
      return (op) => laneProcs[lanes[op]!]!;
    }
    return (op) => exceptions.get(op, laneProcs[lanes[op]!]);
  }

  /** (process, correlation id) → the API op. */
  private indexApiCalls(procOf: (op: number) => number): CorrelationIndex {
    const ops = this.ops;
    return new CorrelationIndex(procOf, ops.corr.data, ops.kind.data, OpKind.ApiCall, ops.count);
  }

  /** nsys writes event records with time 0 unless device timestamps were taken: put them at their API call. */
  private placeUntimedRecords(apiByCorr: CorrelationIndex, procOf: (op: number) => number): void {
    let unplaced = 0;
    for (let i = 0; i < this.ops.count; i++) {
      if (this.ops.kind.data[i] !== OpKind.EventRecord || this.ops.startNs.data[i] !== 0) {
        continue;
      }
      const api = apiByCorr.get(procOf(i), this.ops.corr.data[i]!);
      if (api < 0) {
        unplaced++;
        this.ops.startNs.data[i] = Number.NaN; // dropped from the origin; placed at the origin
        this.ops.endNs.data[i] = Number.NaN;
      } else {
        this.ops.startNs.data[i] = this.ops.endNs.data[api]!;
        this.ops.endNs.data[i] = this.ops.endNs.data[api]!;
      }
    }
    if (unplaced > 0) {
      this.warnings.add(`${unplaced} event records have no time and no API call; drawn at time 0`);
    }
  }

  private earliestNs(): number {
    let min = Infinity;
    for (let i = 0; i < this.ops.count; i++) {
      const s = this.ops.startNs.data[i]!;
      if (s < min) {
        min = s;
      }
    }
    min = Math.min(min, this.ranges.earliestNs());
    if (!Number.isFinite(min)) {
      return 0;
    }
    this.placeUnstarted(min);
    return min;
  }

  /** Ops with no time (NaN) start and end at `originNs` (a method of its own: see finish-op-loops.ts). */
  private placeUnstarted(originNs: number): void {
    for (let i = 0; i < this.ops.count; i++) {
      if (Number.isNaN(this.ops.startNs.data[i]!)) {
        this.ops.startNs.data[i] = originNs;
        this.ops.endNs.data[i] = originNs;
      }
    }
  }

  private addDevices(trace: Trace): void {
    const seen = this.lanes.deviceIds();
    for (const id of [...new Set([...seen, ...this.devices.keys()])].sort((a, b) => a - b)) {
      trace.addDevice(this.devices.get(id) ?? { deviceId: id, name: `GPU ${id}` });
    }
  }

  private resolveName(ref: number): number {
    return this.sourceStrings.resolveName(ref);
  }

  private resolveText(ref: number): string {
    return this.sourceStrings.resolveText(ref);
  }
}

/** a + b for a decimal int64 string and a safe integer. */
function addDecimal(a: string, b: number): string {
  return (BigInt(a) + BigInt(Math.round(b))).toString();
}
