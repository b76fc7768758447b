import type { PlanStream } from '@streamscope/workload';
import type { CopyEngineRole } from './profile.ts';

/** What a device command needs to run. */
export const CmdKind = {
  /** Blocks on the SMs (kernels; memsets and DtoD copies too, as full-GPU blocks). */
  Compute: 0,
  /** A copy engine. */
  Copy: 1,
  /** Nothing but its stream's turn: event record, stream wait. */
  Marker: 2,
  /** A fixed delay once its turn comes: host function, async alloc/free, HtoH copy. */
  Delay: 3,
} as const;
export type CmdKind = (typeof CmdKind)[keyof typeof CmdKind];

/** A host thread blocked until `remaining` commands signal (or a launch slot frees). */
export interface HostWait {
  readonly thread: number;
  remaining: number;
}

export type Waiter = Cmd | HostWait;

/** Kernels issued back-to-back on Fermi: their completion signals wait for all of them. */
export interface KernelGroup {
  readonly members: Cmd[];
  done: number;
  closed: boolean;
}

/** One batch of blocks of a kernel, resident until it ends. */
export interface Wave {
  readonly cmd: Cmd;
  readonly blocks: number;
  readonly warps: number;
  /** Work kernels: iterations per thread left, progress rate and when it was last updated. */
  iterationsLeft: number;
  ratePerNs: number;
  updatedNs: number;
  version: number;
}

/**
 * The numeric state of in-flight commands, in Float64 columns indexed by a slot. Times and
 * byte counts exceed small integers, and as object fields each would be a separate boxed
 * number; here they cost nothing to allocate. Slots are reused once a command has signalled.
 */
export class CmdPool {
  arrivalNs = new Float64Array(1024);
  frontNs = new Float64Array(1024);
  notBeforeNs = new Float64Array(1024);
  startNs = new Float64Array(1024);
  endNs = new Float64Array(1024);
  bytes = new Float64Array(1024);
  bytesLeft = new Float64Array(1024);
  rateBytesPerNs = new Float64Array(1024);
  baseBytesPerNs = new Float64Array(1024);
  updatedNs = new Float64Array(1024);
  blockNs = new Float64Array(1024);
  delayNs = new Float64Array(1024);
  private readonly free: number[] = [];
  private next = 0;

  alloc(): number {
    const slot = this.free.pop();
    if (slot !== undefined) {
      return slot;
    }
    if (this.next === this.startNs.length) {
      this.grow();
    }
    return this.next++;
  }

  release(slot: number): void {
    this.free.push(slot);
  }

  private grow(): void {
    const size = this.startNs.length * 2;
    this.arrivalNs = grown(this.arrivalNs, size);
    this.frontNs = grown(this.frontNs, size);
    this.notBeforeNs = grown(this.notBeforeNs, size);
    this.startNs = grown(this.startNs, size);
    this.endNs = grown(this.endNs, size);
    this.bytes = grown(this.bytes, size);
    this.bytesLeft = grown(this.bytesLeft, size);
    this.rateBytesPerNs = grown(this.rateBytesPerNs, size);
    this.baseBytesPerNs = grown(this.baseBytesPerNs, size);
    this.updatedNs = grown(this.updatedNs, size);
    this.blockNs = grown(this.blockNs, size);
    this.delayNs = grown(this.delayNs, size);
  }
}

function grown(column: Float64Array<ArrayBuffer>, size: number): Float64Array<ArrayBuffer> {
  const next = new Float64Array(size);
  next.set(column);
  return next;
}

/**
 * A unit of device work in one stream, from issue to completion signal. Its numbers live in
 * a CmdPool slot until it signals; only `signalled`, `done`, `gpuOp` and the links are read after.
 */
export class Cmd {
  pendingDeps = 0;
  waiters: Waiter[] | null = null;
  arrived = false;
  ready = false;
  done = false;
  signalled = false;
  hwQueue: HwQueue | null = null;
  group: KernelGroup | null = null;
  // Compute
  blocksLeft = 0;
  runningWaves = 0;
  threadsPerBlock = 0;
  warpsPerBlock = 0;
  smemPerBlock = 0;
  /** Work blocks: iterations per thread. 0 for timed blocks. */
  iterations = 0;
  // Copy
  direction: CopyEngineRole | 'ptop' = 'any';
  version = 0;
  engine = -1;
  /** Least gap after the previous op of its stream signals, ns. */
  gapNs = 0;
  // Trace
  apiOp = -1;
  gpuOp = -1;
  flowFrom: Cmd | null = null;
  readonly slot: number;

  constructor(
    private readonly pool: CmdPool,
    readonly seq: number,
    readonly kind: CmdKind,
    readonly stream: SimStream,
    arrivalNs: number,
    /** OpKind of the GPU op this becomes in the trace. */
    readonly opKind: number,
    readonly nameId: number,
    readonly correlationId: number,
    bytes: number,
    readonly memKinds: number,
    readonly refId: number,
    readonly flags: number,
  ) {
    const slot = pool.alloc();
    this.slot = slot;
    pool.arrivalNs[slot] = arrivalNs;
    pool.frontNs[slot] = -1;
    pool.notBeforeNs[slot] = 0;
    pool.startNs[slot] = -1;
    pool.endNs[slot] = -1;
    pool.bytes[slot] = bytes;
    pool.bytesLeft[slot] = 0;
    pool.rateBytesPerNs[slot] = 0;
    pool.baseBytesPerNs[slot] = 0;
    pool.updatedNs[slot] = 0;
    pool.blockNs[slot] = 0;
    pool.delayNs[slot] = 0;
  }

  /** Gives the slot back: call once, when the command has signalled. */
  release(): void {
    this.pool.release(this.slot);
  }

  /** When the launch reaches the device. */
  get arrivalNs(): number {
    return this.pool.arrivalNs[this.slot]!;
  }

  set arrivalNs(value: number) {
    this.pool.arrivalNs[this.slot] = value;
  }

  /** When it became its stream's front (its turn), for wait spans. */
  get frontNs(): number {
    return this.pool.frontNs[this.slot]!;
  }

  set frontNs(value: number) {
    this.pool.frontNs[this.slot] = value;
  }

  /** Earliest start: arrival at the device, or the stream's gap after its previous op. */
  get notBeforeNs(): number {
    return this.pool.notBeforeNs[this.slot]!;
  }

  set notBeforeNs(value: number) {
    this.pool.notBeforeNs[this.slot] = value;
  }

  get startNs(): number {
    return this.pool.startNs[this.slot]!;
  }

  set startNs(value: number) {
    this.pool.startNs[this.slot] = value;
  }

  get endNs(): number {
    return this.pool.endNs[this.slot]!;
  }

  set endNs(value: number) {
    this.pool.endNs[this.slot] = value;
  }

  /** Bytes moved or set (trace column). */
  get bytes(): number {
    return this.pool.bytes[this.slot]!;
  }

  set bytes(value: number) {
    this.pool.bytes[this.slot] = value;
  }

  /** Copies: bytes still to move (the fixed setup counted as bytes). */
  get bytesLeft(): number {
    return this.pool.bytesLeft[this.slot]!;
  }

  set bytesLeft(value: number) {
    this.pool.bytesLeft[this.slot] = value;
  }

  get rateBytesPerNs(): number {
    return this.pool.rateBytesPerNs[this.slot]!;
  }

  set rateBytesPerNs(value: number) {
    this.pool.rateBytesPerNs[this.slot] = value;
  }

  get baseBytesPerNs(): number {
    return this.pool.baseBytesPerNs[this.slot]!;
  }

  set baseBytesPerNs(value: number) {
    this.pool.baseBytesPerNs[this.slot] = value;
  }

  /** When bytesLeft was last brought up to date. */
  get updatedNs(): number {
    return this.pool.updatedNs[this.slot]!;
  }

  set updatedNs(value: number) {
    this.pool.updatedNs[this.slot] = value;
  }

  /** Timed blocks (and memsets, DtoD copies): ns each block runs. */
  get blockNs(): number {
    return this.pool.blockNs[this.slot]!;
  }

  set blockNs(value: number) {
    this.pool.blockNs[this.slot] = value;
  }

  /** Delay commands: how long they take once started. */
  get delayNs(): number {
    return this.pool.delayNs[this.slot]!;
  }

  set delayNs(value: number) {
    this.pool.delayNs[this.slot] = value;
  }
}

export class HwQueue {
  items: (Cmd | undefined)[] = [];
  head = 0;

  front(): Cmd | undefined {
    return this.items[this.head];
  }

  push(cmd: Cmd): void {
    this.items.push(cmd);
  }

  pop(): void {
    // Drop the reference at once so finished commands die young (cheap for the GC).
    this.items[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

export class SimStream {
  fifo: (Cmd | undefined)[] = [];
  head = 0;
  lastCmd: Cmd | null = null;
  lastSignalNs = -Infinity;
  readonly isLegacy: boolean;
  /** Blocking streams (created blocking, or per-thread default) synchronize with the legacy stream. */
  readonly isBlocking: boolean;

  constructor(
    readonly plan: PlanStream,
    readonly track: number,
    readonly device: number,
    readonly priority: number,
    readonly hwQueue: number,
  ) {
    this.isLegacy = plan.type === 'legacy-default';
    this.isBlocking = plan.type === 'blocking' || plan.type === 'per-thread-default';
  }

  front(): Cmd | undefined {
    return this.fifo[this.head];
  }

  push(cmd: Cmd): void {
    this.fifo.push(cmd);
    this.lastCmd = cmd;
  }

  pop(): void {
    this.fifo[this.head++] = undefined;
    if (this.head > 1024 && this.head * 2 > this.fifo.length) {
      this.fifo = this.fifo.slice(this.head);
      this.head = 0;
    }
  }
}
