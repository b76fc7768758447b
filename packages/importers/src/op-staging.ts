import { noRef } from '@streamscope/trace';
import { StagingColumn } from './staging-columns.ts';

/** One GPU or host op as an importer hands it over. Reuse one object; the builder keeps none. */
export interface StagedOp {
  kind: number;
  startNs: number;
  endNs: number;
  /** Index from `processFor()`. */
  proc: number;
  /** Index from `gpuLane()` or `hostLane()`; the lane's process is the op's (else the builder notes it). */
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

/** Resets the fields a reused op does not always set: sizes, kinds, refs, flags, events, correlation. */
export function clearStagedOp(op: StagedOp): StagedOp {
  op.bytes = 0;
  op.memKinds = 0;
  op.refId = noRef;
  op.flags = 0;
  op.eventId = Number.NaN;
  op.eventSyncId = Number.NaN;
  op.correlationId = 0;
  return op;
}

const maxBlockOps = 1 << 16;

/** The staging was asked to hold more ops than its limit (`OpStaging.maxOps`). */
export class OpLimitReached extends RangeError {
  constructor(readonly maxOps: number) {
    super(`more than ${maxOps} ops`);
  }
}

/**
 * Staged ops, one typed column per field, all grown together (geometrically). Past a reservation
 * the columns grow by blocks, with no copy while ops arrive: `join` (also run by `fit` and
 * `reserve`) puts the blocks together once, so read a column's `data` after it.
 */
export class OpStaging {
  count = 0;
  private capacity = 1024;
  /** Ops in the filled blocks before each column's `data` (0 once joined). */
  private base = 0;
  /** The most ops it holds: one more is an OpLimitReached, before any column grows for it. */
  private limit = Number.POSITIVE_INFINITY;
  readonly startNs = new StagingColumn(Float64Array);
  readonly endNs = new StagingColumn(Float64Array);
  readonly bytes = new StagingColumn(Float64Array);
  // Event ids are kept only for the few ops that have one (records, waits, syncs): a dense
  // Float64 column of each cost 16 bytes an op, almost all NaN. Op indices ascend.
  private eventCount = 0;
  private readonly eventOp = new StagingColumn(Uint32Array);
  private readonly eventIds = new StagingColumn(Float64Array);
  private readonly eventSyncIds = new StagingColumn(Float64Array);
  // No process column: an op's process is its lane's (the builder keeps the rare exception).
  readonly lane = new StagingColumn(Uint32Array);
  readonly nameRef = new StagingColumn(Int32Array);
  readonly corr = new StagingColumn(Uint32Array);
  readonly refId = new StagingColumn(Uint32Array);
  readonly kind = new StagingColumn(Uint8Array);
  readonly memKinds = new StagingColumn(Uint8Array);
  readonly flags = new StagingColumn(Uint8Array);

  /** Ops the columns hold before they must grow. */
  get room(): number {
    return this.capacity;
  }

  get maxOps(): number {
    return this.limit;
  }

  /** Limits the ops it holds to `ops` (at least the ops already staged). */
  set maxOps(ops: number) {
    if (!(ops >= this.count)) {
      throw new RangeError(`an op limit of ${ops} is below the ${this.count} ops staged`);
    }
    this.limit = ops;
  }

  /** Pre-sizes the columns for about `ops` ops (a hint: they still grow past it), never past the limit. */
  reserve(ops: number): void {
    const room = Math.min(Math.ceil(ops), this.limit);
    if (room > this.capacity) {
      this.join();
      this.capacity = room;
      this.resize();
    }
  }

  /**
   * Puts each column's blocks together in one array of the ops staged (one copy of them, made
   * once), so that `data` holds every op by its index. Nothing to do when the columns never spilled.
   */
  join(): void {
    if (this.base === 0) {
      return;
    }
    for (const column of this.columns()) {
      column.join(this.count);
    }
    this.base = 0;
    this.capacity = this.count;
  }

  /**
   * Shrinks the columns to the ops staged when a reservation overshot by more than an eighth:
   * the op table adopts these arrays, so room past the count would be held for the trace's life.
   * One column is copied at a time (the transient is one column).
   */
  fit(): void {
    this.join();
    const slack = this.capacity - this.count;
    if (slack <= 1024 || slack * 8 <= this.count) {
      return;
    }
    this.capacity = Math.max(this.count, 1);
    this.resize();
  }

  add(op: StagedOp): number {
    const i = this.count;
    if (i >= this.limit) {
      throw new OpLimitReached(this.limit);
    }
    if (i >= this.capacity) {
      // A new block, nothing copied: as large as all before it up to 64k ops (512 KiB of a
      // Float64 column). Small blocks are served from memory the allocator already holds (the
      // input's freed 1-MiB chunks) where one large array is fresh pages, each first write a
      // page fault: in a 100k-GPU-op import (~700k ops), about 15% of its CPU time.
      const block = Math.min(this.capacity, maxBlockOps, this.limit - this.capacity);
      for (const column of this.columns()) {
        column.spill(block);
      }
      this.base = this.capacity;
      this.capacity += block;
    }
    const j = i - this.base;
    this.startNs.data[j] = op.startNs;
    this.endNs.data[j] = op.endNs;
    this.bytes.data[j] = op.bytes;
    if (!Number.isNaN(op.eventId) || !Number.isNaN(op.eventSyncId)) {
      const e = this.eventCount++;
      this.eventOp.at(e)[e] = i;
      this.eventIds.at(e)[e] = op.eventId;
      this.eventSyncIds.at(e)[e] = op.eventSyncId;
    }
    this.lane.data[j] = op.lane;
    this.nameRef.data[j] = op.nameRef;
    this.corr.data[j] = op.correlationId;
    this.refId.data[j] = op.refId;
    this.kind.data[j] = op.kind;
    this.memKinds.data[j] = op.memKinds;
    this.flags.data[j] = op.flags;
    this.count = i + 1;
    return i;
  }

  /** Op `op`'s event id; NaN when it has none. */
  eventId(op: number): number {
    const e = this.eventSlot(op);
    return e < 0 ? Number.NaN : this.eventIds.data[e]!;
  }

  /** Op `op`'s event sync id; NaN when it has none. */
  eventSyncId(op: number): number {
    const e = this.eventSlot(op);
    return e < 0 ? Number.NaN : this.eventSyncIds.data[e]!;
  }

  /** Where op `op`'s event ids sit (binary search over the ascending op indices), or -1. */
  private eventSlot(op: number): number {
    const ops = this.eventOp.data;
    let lo = 0;
    let hi = this.eventCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ops[mid]! < op) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < this.eventCount && ops[lo] === op ? lo : -1;
  }

  /**
   * Drops the columns the op table has copied (times, sizes, refs, lanes, names, flags) so that
   * a big import's peak holds them once; kind, correlation and event ids stay for linking. No op may be added afterwards.
   */
  releaseCopied(): void {
    for (const column of [
      this.startNs,
      this.endNs,
      this.bytes,
      this.lane,
      this.nameRef,
      this.refId,
      this.memKinds,
      this.flags,
    ]) {
      column.release();
    }
    this.capacity = 0;
  }

  /** Copies the (joined) columns to arrays of `capacity`. */
  private resize(): void {
    for (const column of this.columns()) {
      column.resize(this.capacity, this.count);
    }
  }

  private columns(): StagingColumn<Float64Array | Int32Array | Uint32Array | Uint8Array>[] {
    return [
      this.startNs,
      this.endNs,
      this.bytes,
      this.lane,
      this.nameRef,
      this.corr,
      this.refId,
      this.kind,
      this.memKinds,
      this.flags,
    ];
  }
}
