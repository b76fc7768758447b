// Hand-written types of the addon build/streamscope_native.node (src/addon.cc). One run per
// process at a time; every call is made on the JS main thread.

export interface NativeDevice {
  readonly deviceId: number;
  readonly name: string;
  readonly smCount?: number;
  readonly copyEngineCount?: number;
  readonly memoryBytes?: number;
  readonly computeCapability?: string;
  readonly pciBusId?: string;
  readonly clockRateKHz?: number;
  /** [greatest, least]: numerically lower is higher priority. */
  readonly priorityRange?: readonly [number, number];
  readonly concurrentKernels?: boolean;
}

export interface NativeProbe {
  readonly built: true;
  readonly cuda: {
    readonly ok: boolean;
    readonly runtimeVersion: number;
    /** 0 when there is no driver. */
    readonly driverVersion: number;
    readonly errorName?: string;
    readonly error?: string;
    readonly devices: readonly NativeDevice[];
  };
  readonly cupti: {
    readonly ok: boolean;
    readonly version?: number;
    readonly library?: string;
    readonly error?: string;
  };
  /** NCCL, for plans with collectives: version as major*10000 + minor*100 + patch. */
  readonly nccl: {
    readonly ok: boolean;
    readonly version?: number;
    readonly library?: string;
    /** Every place that was tried, when none loaded. */
    readonly error?: string;
  };
}

/** Stream type: 0 legacy default, 1 per-thread default, 2 blocking, 3 non-blocking. */
export interface NativeStream {
  readonly device: number;
  readonly type: 0 | 1 | 2 | 3;
  readonly priority: number;
  /** Trace track of the stream's GPU ops. */
  readonly track: number;
}

/** Buffer kind: 0 device, 1 pinned host, 2 pageable host, 3 stream-ordered (MallocAsync op). */
export interface NativeBuffer {
  readonly device: number;
  readonly kind: 0 | 1 | 2 | 3;
  readonly bytes: number;
}

/** Ops: 11 numbers each (code, stream, a0..a6, nameId, refId or -1); codes in src/plan.h. */
export interface NativeOpList {
  readonly ops: Float64Array;
}

export interface NativePlan {
  /** CUDA ordinals the plan uses. */
  readonly devices: readonly number[];
  readonly streams: readonly NativeStream[];
  readonly buffers: readonly NativeBuffer[];
  readonly events: readonly { readonly device: number }[];
  readonly graphs: readonly (NativeOpList & { readonly captureStream: number })[];
  /** One native thread each; `track` is its host-thread track. */
  readonly threads: readonly (NativeOpList & { readonly track: number })[];
  /** NCCL communicator sets (ncclCommInitAll): rank i runs on CUDA ordinal devices[i]. */
  readonly comms?: readonly { readonly devices: readonly number[] }[];
  /**
   * Collectives (op code 23 names one by index): NCCL calls issued in one group, `parts` 8
   * numbers each (call 0 allReduce..5 recv, stream, sendBuffer, sendOffset, recvBuffer,
   * recvOffset, rank, peer); dtype and reduce are ncclDataType_t and ncclRedOp_t values.
   */
  readonly collectives?: readonly {
    readonly comm: number;
    readonly count: number;
    readonly dtype: number;
    readonly reduce: number;
    readonly root: number;
    readonly parts: Float64Array;
  }[];
}

export interface NativeRunOptions {
  /** auto: CUPTI, else cudaEvent pairs; none: host-side API times only (overhead baseline). */
  readonly timing?: 'auto' | 'cupti' | 'events' | 'none';
  readonly flushIntervalMs?: number;
  /** The receiver's string count: the addon interns API names from this id on. */
  readonly firstStringId?: number;
  readonly maxQueuedRecords?: number;
}

export interface NativeRunStarted {
  /** Absolute ns of trace time 0 in the run's clock, as a decimal string. */
  readonly originNs: string;
  readonly timingMethod: 'cupti' | 'events' | 'none';
  readonly timingNote: string;
}

export interface NativeRunStatus {
  readonly state: 'idle' | 'running' | 'finished' | 'cancelled' | 'failed';
  /** True once the final drain returned: nothing more will come. */
  readonly drained?: boolean;
  readonly error?: string;
  readonly opsOut?: number;
  readonly dropped?: number;
  readonly unmatched?: number;
  readonly cuptiDropped?: number;
  readonly beforeOrigin?: number;
  readonly eventRecords?: number;
  /** Stream waits whose GPU times never arrived, so no wait op was drawn for them. */
  readonly unresolvedWaits?: number;
  /** Names past the sink's bound (native/src/collector-bounds.h), shown as a stand-in name. */
  readonly namesDropped?: number;
  readonly cuptiNotes?: string;
  readonly makespanNs?: number;
  readonly timingMethod?: string;
}

export interface NativeEncodeInput {
  readonly firstStringId: number;
  readonly strings: readonly string[];
  readonly firstOp: number;
  /** 10 numbers per op: startNs, endNs, track, kind, nameId, bytes, memKinds, correlationId, refId (-1), flags. */
  readonly ops: Float64Array;
  readonly firstFlow: number;
  /** 3 numbers per flow: fromOp, toOp, kind. */
  readonly flows: Float64Array;
}

export interface NativeAddon {
  probe(): NativeProbe;
  /** Sets up synchronously (throws with the reason), then issues on native threads. */
  start(plan: NativePlan, options: NativeRunOptions, doorbell: () => void): NativeRunStarted;
  /** Codec batches (strings, ops, flows) produced since the last call; empty when none. */
  drain(): Uint8Array;
  status(): NativeRunStatus;
  cancel(): void;
  /** A plain cudaMemcpy loop, untraced, in bytes/s. */
  copyBandwidth(options: {
    readonly device?: number;
    readonly direction: 'htod' | 'dtoh';
    readonly pinned: boolean;
    readonly bytes?: number;
    readonly reps?: number;
  }): number;
  /** The codec writer on its own, for the cross-check test. */
  encodeBatches(input: NativeEncodeInput): Uint8Array;
  readonly codecVersion: number;
}
