// The lowered plan the addon executes: native/index.d.ts declares the same shape and
// native/src/plan.h the op codes. Kept here because packages/executor may not import native/.

export const NativeOpCode = {
  KernelTimed: 1,
  KernelWork: 2,
  Copy: 3,
  Memset: 4,
  EventRecord: 5,
  StreamWait: 6,
  StreamSync: 7,
  EventSync: 8,
  DeviceSync: 9,
  HostFunc: 10,
  HostWork: 11,
  GraphLaunch: 12,
  MallocAsync: 13,
  FreeAsync: 14,
  PeerCopy: 15,
  WaitRecorded: 16,
  Fault: 17,
  GraphCapture: 18,
  Malloc: 19,
  Free: 20,
  RangePush: 21,
  RangePop: 22,
  Collective: 23,
} as const;
export type NativeOpCode = (typeof NativeOpCode)[keyof typeof NativeOpCode];

/** Numbers per op: code, stream, a0..a6, nameId, refId (-1: none). */
export const nativeOpStride = 11;

export interface NativeStream {
  readonly device: number;
  /** 0 legacy default, 1 per-thread default, 2 blocking, 3 non-blocking. */
  readonly type: 0 | 1 | 2 | 3;
  readonly priority: number;
  readonly track: number;
}

export interface NativeBuffer {
  readonly device: number;
  /** 0 device, 1 pinned, 2 pageable, 3 stream-ordered. */
  readonly kind: 0 | 1 | 2 | 3;
  readonly bytes: number;
  /** 1: allocated by a malloc op during the run, not at setup. */
  readonly deferred: 0 | 1;
}

export interface NativePlan {
  readonly devices: readonly number[];
  readonly streams: readonly NativeStream[];
  readonly buffers: readonly NativeBuffer[];
  readonly events: readonly { readonly device: number }[];
  readonly graphs: readonly { readonly captureStream: number; readonly ops: Float64Array }[];
  readonly threads: readonly { readonly track: number; readonly ops: Float64Array }[];
  readonly comms?: readonly NativeComm[];
  readonly collectives?: readonly NativeCollective[];
}

/** A communicator set (ncclCommInitAll): rank i runs on CUDA ordinal devices[i]. */
export interface NativeComm {
  readonly devices: readonly number[];
}

/** Numbers per collective part: call, stream, sendBuffer, sendOffset, recvBuffer, recvOffset, rank, peer. */
export const nativeCollectivePartStride = 8;

/** One collective op's NCCL calls, issued in one ncclGroupStart/End (native/src/plan.h). */
export interface NativeCollective {
  readonly comm: number;
  /** NCCL's count, in elements. */
  readonly count: number;
  /** ncclDataType_t and ncclRedOp_t values. */
  readonly dtype: number;
  readonly reduce: number;
  readonly root: number;
  readonly parts: Float64Array;
}

export interface NativeRunOptions {
  readonly timing: 'auto' | 'cupti' | 'events' | 'none';
  readonly flushIntervalMs: number;
  readonly firstStringId: number;
  readonly maxQueuedRecords: number;
}

export interface NativeOpFields {
  readonly code: NativeOpCode;
  readonly stream: number;
  /** Up to 7 arguments, meaning per code (native/src/plan.h). */
  readonly args?: readonly number[];
  readonly nameId?: number;
  readonly refId?: number;
}

/** Packs ops into the addon's flat Float64Array form. */
export class NativeOpList {
  private readonly values: number[] = [];

  push(op: NativeOpFields): void {
    const args = op.args ?? [];
    this.values.push(op.code, op.stream);
    for (let i = 0; i < 7; i++) {
      this.values.push(args[i] ?? 0);
    }
    this.values.push(op.nameId ?? 0, op.refId ?? -1);
  }

  get count(): number {
    return this.values.length / nativeOpStride;
  }

  finish(): Float64Array {
    return Float64Array.from(this.values);
  }
}
