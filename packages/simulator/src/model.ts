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

/** A unit of device work in one stream, from issue to completion signal. */
export class Cmd {
  pendingDeps = 0;
  waiters: Waiter[] | null = null;
  arrived = false;
  ready = false;
  done = false;
  signalled = false;
  /** When it became its stream's front (its turn), for wait spans. */
  frontNs = -1;
  startNs = -1;
  endNs = -1;
  hwQueue: HwQueue | null = null;
  group: KernelGroup | null = null;
  // Compute
  blocksLeft = 0;
  runningWaves = 0;
  threadsPerBlock = 0;
  warpsPerBlock = 0;
  smemPerBlock = 0;
  /** Timed blocks: ns each block runs. Work blocks: 0. */
  blockNs = 0;
  iterations = 0;
  /** Extra time of the first wave (launch ramp), ns. */
  firstWaveExtraNs = 0;
  // Copy and delay
  direction: CopyEngineRole | 'ptop' = 'any';
  bytesLeft = 0;
  rateBytesPerNs = 0;
  baseBytesPerNs = 0;
  updatedNs = 0;
  version = 0;
  engine = -1;
  delayNs = 0;
  /** Least gap after the previous op of its stream signals, ns. */
  gapNs = 0;
  // Trace
  apiOp = -1;
  gpuOp = -1;
  flowFrom: Cmd | null = null;

  constructor(
    readonly seq: number,
    readonly kind: CmdKind,
    readonly stream: SimStream,
    readonly arrivalNs: number,
    /** OpKind of the GPU op this becomes in the trace. */
    readonly opKind: number,
    readonly nameId: number,
    readonly correlationId: number,
    readonly bytes: number,
    readonly memKinds: number,
    readonly refId: number,
    readonly flags: number,
  ) {}
}

export class HwQueue {
  items: Cmd[] = [];
  head = 0;

  front(): Cmd | undefined {
    return this.items[this.head];
  }

  push(cmd: Cmd): void {
    this.items.push(cmd);
  }

  pop(): void {
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}

export class SimStream {
  fifo: Cmd[] = [];
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
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.fifo.length) {
      this.fifo = this.fifo.slice(this.head);
      this.head = 0;
    }
  }
}
