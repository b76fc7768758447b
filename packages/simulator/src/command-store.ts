/** A command's slot in the CommandStore: an index into its columns. -1 is none. */
export type CmdSlot = number;

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

/** Which copy engines a copy may use: its direction's own, else one that takes any. */
export const CopyDir = { Any: 0, HtoD: 1, DtoH: 2, PtoP: 3 } as const;
export type CopyDir = (typeof CopyDir)[keyof typeof CopyDir];

/** Bits of `state`. */
export const CmdState = { Arrived: 1, Ready: 2, Done: 4, Signalled: 8 } as const;

/**
 * Every command in flight, one slot each, as typed columns: a million-op run makes no object
 * per command, so the garbage collector has nothing to trace or move. A slot is reused once
 * its command has signalled and nothing refers to it any more (`retain` / `release`: stream
 * FIFOs, hardware queues, an event's latest record, a wait's record, a blocked host call).
 * Lists of waiters (commands or host threads blocked on a command) are linked lists in
 * typed columns too.
 */
export class CommandStore {
  // Times, ns; bytes and rates; anything that may exceed 2^31 is a Float64 column.
  seq = new Float64Array(0);
  arrivalNs = new Float64Array(0);
  frontNs = new Float64Array(0);
  notBeforeNs = new Float64Array(0);
  startNs = new Float64Array(0);
  endNs = new Float64Array(0);
  gapNs = new Float64Array(0);
  bytes = new Float64Array(0);
  bytesLeft = new Float64Array(0);
  rateBytesPerNs = new Float64Array(0);
  baseBytesPerNs = new Float64Array(0);
  updatedNs = new Float64Array(0);
  blockNs = new Float64Array(0);
  delayNs = new Float64Array(0);
  blocksLeft = new Float64Array(0);
  iterations = new Float64Array(0);
  /** Copies: the version of their latest CopyEnd event (unique over the run, never reused). */
  version = new Float64Array(0);
  kind = new Uint8Array(0);
  state = new Uint8Array(0);
  /** OpKind of the GPU op this becomes in the trace. */
  opKind = new Uint8Array(0);
  memKinds = new Uint8Array(0);
  flags = new Uint8Array(0);
  direction = new Uint8Array(0);
  /** Plan stream id. */
  stream = new Int32Array(0);
  nameId = new Uint32Array(0);
  correlationId = new Uint32Array(0);
  refId = new Uint32Array(0);
  pendingDeps = new Int32Array(0);
  /** Index of its hardware queue in its device, -1 before it is queued. */
  hwQueue = new Int32Array(0);
  /** Fermi kernel group id, -1 for none. */
  group = new Int32Array(0);
  runningWaves = new Int32Array(0);
  threadsPerBlock = new Int32Array(0);
  warpsPerBlock = new Int32Array(0);
  smemPerBlock = new Int32Array(0);
  /** Compute: 1 when each block holds a whole SM (a collective's channels), 0 otherwise. */
  holdsSm = new Uint8Array(0);
  engine = new Int32Array(0);
  apiOp = new Int32Array(0);
  gpuOp = new Int32Array(0);
  /** Stream waits: the record they wait for (retained until this command is freed). */
  flowFrom = new Int32Array(0);
  waitHead = new Int32Array(0);
  waitTail = new Int32Array(0);
  refs = new Int32Array(0);
  private readonly freeSlots: number[] = [];
  private used = 0;
  // Waiter nodes: `target` >= 0 is a command slot, < 0 is host thread -1 - target.
  private nodeNext = new Int32Array(256);
  private nodeTarget = new Int32Array(256);
  private freeNode = -1;
  private nodesUsed = 0;
  private nextSeq = 0;
  private lastVersion = 0;

  constructor(initialSlots = 256) {
    this.resize(initialSlots);
  }

  /** A fresh command: every column at its starting value. */
  alloc(
    kind: CmdKind,
    stream: number,
    arrivalNs: number,
    opKind: number,
    nameId: number,
    correlationId: number,
    bytes: number,
    memKinds: number,
    refId: number,
    flags: number,
  ): CmdSlot {
    let s = this.freeSlots.pop();
    if (s === undefined) {
      if (this.used === this.seq.length) {
        this.resize(this.used * 2);
      }
      s = this.used++;
    }
    this.seq[s] = this.nextSeq++;
    this.arrivalNs[s] = arrivalNs;
    this.frontNs[s] = -1;
    this.notBeforeNs[s] = 0;
    this.startNs[s] = -1;
    this.endNs[s] = -1;
    this.gapNs[s] = 0;
    this.bytes[s] = bytes;
    this.version[s] = 0;
    this.kind[s] = kind;
    this.state[s] = 0;
    this.opKind[s] = opKind;
    this.memKinds[s] = memKinds;
    this.flags[s] = flags;
    this.stream[s] = stream;
    this.nameId[s] = nameId;
    this.correlationId[s] = correlationId;
    this.refId[s] = refId;
    this.pendingDeps[s] = 0;
    this.hwQueue[s] = -1;
    this.group[s] = -1;
    this.apiOp[s] = -1;
    this.gpuOp[s] = -1;
    this.flowFrom[s] = -1;
    this.waitHead[s] = -1;
    this.waitTail[s] = -1;
    this.refs[s] = 0;
    // Columns of one kind only are read for commands of that kind: reset just those.
    switch (kind) {
      case CmdKind.Compute:
        this.blocksLeft[s] = 0;
        this.iterations[s] = 0;
        this.runningWaves[s] = 0;
        this.threadsPerBlock[s] = 0;
        this.warpsPerBlock[s] = 0;
        this.smemPerBlock[s] = 0;
        this.holdsSm[s] = 0;
        this.blockNs[s] = 0;
        break;
      case CmdKind.Copy:
        this.direction[s] = CopyDir.Any;
        this.bytesLeft[s] = 0;
        this.rateBytesPerNs[s] = 0;
        this.baseBytesPerNs[s] = 0;
        this.updatedNs[s] = 0;
        this.engine[s] = -1;
        break;
      case CmdKind.Delay:
        this.delayNs[s] = 0;
        break;
    }
    return s;
  }

  /** A new version for copy `s`, newer than any before (its earlier CopyEnd events go stale). */
  newVersion(s: CmdSlot): number {
    const v = ++this.lastVersion;
    this.version[s] = v;
    return v;
  }

  set(s: CmdSlot, bit: number): void {
    this.state[s] = this.state[s]! | bit;
  }

  signalled(s: CmdSlot): boolean {
    return (this.state[s]! & CmdState.Signalled) !== 0;
  }

  retain(s: CmdSlot): void {
    this.refs[s]!++;
  }

  /** Drops a reference; the slot is reused once its command has signalled and nothing refers to it. */
  release(s: CmdSlot): void {
    if (--this.refs[s]! === 0 && this.signalled(s)) {
      this.free(s);
    }
  }

  private free(s: CmdSlot): void {
    const from = this.flowFrom[s]!;
    // Until it is reused, a freed slot reads as done and signalled.
    this.state[s] = CmdState.Done | CmdState.Signalled;
    this.freeSlots.push(s);
    if (from >= 0) {
      this.flowFrom[s] = -1;
      this.release(from);
    }
  }

  /** Adds `target` (a command slot, or host thread -1 - id) to the waiters of `s`, in order. */
  addWaiter(s: CmdSlot, target: number): void {
    let node = this.freeNode;
    if (node >= 0) {
      this.freeNode = this.nodeNext[node]!;
    } else {
      if (this.nodesUsed === this.nodeNext.length) {
        this.nodeNext = grown(this.nodeNext, this.nodesUsed * 2);
        this.nodeTarget = grown(this.nodeTarget, this.nodesUsed * 2);
      }
      node = this.nodesUsed++;
    }
    this.nodeTarget[node] = target;
    this.nodeNext[node] = -1;
    const tail = this.waitTail[s]!;
    if (tail < 0) {
      this.waitHead[s] = node;
    } else {
      this.nodeNext[tail] = node;
    }
    this.waitTail[s] = node;
  }

  /** Whether command `waiter` is among the waiters of `s`. */
  isWaiting(s: CmdSlot, waiter: CmdSlot): boolean {
    for (let node = this.waitHead[s]!; node >= 0; node = this.nodeNext[node]!) {
      if (this.nodeTarget[node] === waiter) {
        return true;
      }
    }
    return false;
  }

  /** Detaches the waiters of `s`: returns the first node (walk with `nextWaiter`), or -1. */
  takeWaiters(s: CmdSlot): number {
    const head = this.waitHead[s]!;
    this.waitHead[s] = -1;
    this.waitTail[s] = -1;
    return head;
  }

  waiterOf(node: number): number {
    return this.nodeTarget[node]!;
  }

  /** The node after `node`; `node` goes back to the free list. */
  nextWaiter(node: number): number {
    const next = this.nodeNext[node]!;
    this.nodeNext[node] = this.freeNode;
    this.freeNode = node;
    return next;
  }

  private resize(size: number): void {
    this.seq = grown(this.seq, size);
    this.arrivalNs = grown(this.arrivalNs, size);
    this.frontNs = grown(this.frontNs, size);
    this.notBeforeNs = grown(this.notBeforeNs, size);
    this.startNs = grown(this.startNs, size);
    this.endNs = grown(this.endNs, size);
    this.gapNs = grown(this.gapNs, size);
    this.bytes = grown(this.bytes, size);
    this.bytesLeft = grown(this.bytesLeft, size);
    this.rateBytesPerNs = grown(this.rateBytesPerNs, size);
    this.baseBytesPerNs = grown(this.baseBytesPerNs, size);
    this.updatedNs = grown(this.updatedNs, size);
    this.blockNs = grown(this.blockNs, size);
    this.delayNs = grown(this.delayNs, size);
    this.blocksLeft = grown(this.blocksLeft, size);
    this.iterations = grown(this.iterations, size);
    this.version = grown(this.version, size);
    this.kind = grown(this.kind, size);
    this.state = grown(this.state, size);
    this.opKind = grown(this.opKind, size);
    this.memKinds = grown(this.memKinds, size);
    this.flags = grown(this.flags, size);
    this.direction = grown(this.direction, size);
    this.stream = grown(this.stream, size);
    this.nameId = grown(this.nameId, size);
    this.correlationId = grown(this.correlationId, size);
    this.refId = grown(this.refId, size);
    this.pendingDeps = grown(this.pendingDeps, size);
    this.hwQueue = grown(this.hwQueue, size);
    this.group = grown(this.group, size);
    this.runningWaves = grown(this.runningWaves, size);
    this.threadsPerBlock = grown(this.threadsPerBlock, size);
    this.warpsPerBlock = grown(this.warpsPerBlock, size);
    this.smemPerBlock = grown(this.smemPerBlock, size);
    this.holdsSm = grown(this.holdsSm, size);
    this.engine = grown(this.engine, size);
    this.apiOp = grown(this.apiOp, size);
    this.gpuOp = grown(this.gpuOp, size);
    this.flowFrom = grown(this.flowFrom, size);
    this.waitHead = grown(this.waitHead, size);
    this.waitTail = grown(this.waitTail, size);
    this.refs = grown(this.refs, size);
  }
}

type Column = Float64Array | Int32Array | Uint32Array | Uint8Array;

/** A copy of `column` with room for `size` entries. */
export function grown<T extends Column>(column: T, size: number): T {
  const next = new (column.constructor as new (length: number) => T)(size);
  next.set(column);
  return next;
}
