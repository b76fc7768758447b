// The Plan: a validated workload expanded into flat, numbered, JSON-serializable data. It is
// what every backend executes: the simulator here, the native executor in C++. Ids are
// indices into their arrays (plan.streams[id].id === id). Sizes are bytes, times are ns,
// all integers. Loops are expanded; nothing in a plan needs evaluating.

export type BufferKind = 'host-pageable' | 'host-pinned' | 'device' | 'stream-ordered';
export type PlanStreamType = 'legacy-default' | 'per-thread-default' | 'blocking' | 'non-blocking';
export type CopyDirection = 'htod' | 'dtoh' | 'dtod' | 'ptop' | 'htoh';

export interface PlanDevice {
  readonly id: number;
  readonly name: string;
  /** Memory the workload may use on it (bytes). */
  readonly memoryBytes: number;
}

export interface PlanBuffer {
  readonly id: number;
  /** `name` or `name[3]` for an array element. */
  readonly name: string;
  readonly kind: BufferKind;
  readonly bytes: number;
  /** Device id of device and stream-ordered buffers; for host buffers the declared device, else 0 (pinned memory is portable). */
  readonly device: number;
  /**
   * `setup`: allocated before the timed run starts and freed after it.
   * `op`: allocated and freed by malloc/free ops of the plan (never in use outside them).
   */
  readonly allocation: 'setup' | 'op';
}

export interface PlanStream {
  readonly id: number;
  readonly name: string;
  readonly device: number;
  readonly type: PlanStreamType;
  /** CUDA priority, lower = more urgent; backends clamp it to the device's range. */
  readonly priority: number;
  /** Owning host thread of a per-thread default stream; null for other streams. */
  readonly thread: number | null;
}

export interface PlanEvent {
  readonly id: number;
  readonly name: string;
  /** The one host thread that records this event (never two, by validation); -1 when nothing records it. */
  readonly recordedBy: number;
}

export interface PlanThread {
  readonly id: number;
  readonly name: string;
  /** Current device of this thread (its legacy and per-thread default streams). */
  readonly device: number;
  /** Issued in this order; `opId`s increase along the list. */
  readonly ops: readonly PlanOp[];
}

/** A captured CUDA graph: a linear chain of nodes captured on `stream`, in this order. */
export interface PlanGraph {
  readonly id: number;
  readonly name: string;
  readonly stream: number;
  /** kernel, copy (async, never pageable), memset (async) or hostFunc nodes, all on `stream`. */
  readonly ops: readonly PlanOp[];
}

interface PlanOpBase {
  /** Unique over the plan (graph nodes included): the executor's external correlation id. */
  readonly opId: number;
  /** JSON path of the spec op this came from, for error messages. */
  readonly src: string;
}

export interface PlanCopy extends PlanOpBase {
  readonly kind: 'copy';
  readonly stream: number;
  readonly direction: CopyDirection;
  readonly srcBuffer: number;
  readonly srcOffset: number;
  readonly dstBuffer: number;
  readonly dstOffset: number;
  readonly bytes: number;
  /** false: cudaMemcpy (stream is a default stream; host blocks). true: cudaMemcpyAsync. */
  readonly async: boolean;
}

export interface PlanKernel extends PlanOpBase {
  readonly kind: 'kernel';
  readonly stream: number;
  readonly name: string;
  /** `timed`: each block spins `durNs`. `work`: each block runs `iterations` calibrated iterations. */
  readonly mode: 'timed' | 'work';
  /** 0 when mode is `work`. */
  readonly durNs: number;
  /** 0 when mode is `timed`. */
  readonly iterations: number;
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  readonly sharedMemBytes: number;
}

export interface PlanMemset extends PlanOpBase {
  readonly kind: 'memset';
  readonly stream: number;
  readonly buffer: number;
  readonly offset: number;
  readonly bytes: number;
  readonly value: number;
  /** false: cudaMemset on a default stream. true: cudaMemsetAsync. */
  readonly async: boolean;
}

export interface PlanEventRecord extends PlanOpBase {
  readonly kind: 'eventRecord';
  readonly stream: number;
  readonly event: number;
}

/**
 * A wait binds, as in CUDA, to the latest record of the event issued before it. When the
 * event is recorded by another thread, `afterRecord` is the opId of that thread's first
 * record: the waiting thread must not issue the wait before that record was issued.
 */
export interface PlanStreamWait extends PlanOpBase {
  readonly kind: 'streamWait';
  readonly stream: number;
  readonly event: number;
  readonly afterRecord: number | null;
}

export interface PlanEventSync extends PlanOpBase {
  readonly kind: 'eventSync';
  readonly event: number;
  readonly afterRecord: number | null;
}

export interface PlanStreamSync extends PlanOpBase {
  readonly kind: 'streamSync';
  readonly stream: number;
}

export interface PlanDeviceSync extends PlanOpBase {
  readonly kind: 'deviceSync';
  readonly device: number;
}

/** cudaLaunchHostFunc: the stream waits while a host callback runs for `durNs`. */
export interface PlanHostFunc extends PlanOpBase {
  readonly kind: 'hostFunc';
  readonly stream: number;
  readonly name: string;
  readonly durNs: number;
}

/** CPU time on the issuing thread between API calls. */
export interface PlanHostWork extends PlanOpBase {
  readonly kind: 'hostWork';
  readonly name: string;
  readonly durNs: number;
}

/**
 * async: cudaMallocAsync / cudaFreeAsync on `stream` (stream-ordered buffers).
 * sync (stream null): cudaMalloc / cudaFree for device buffers, cudaMallocHost / cudaFreeHost
 * for pinned ones, malloc / free for pageable ones.
 */
export interface PlanMalloc extends PlanOpBase {
  readonly kind: 'malloc';
  readonly buffer: number;
  readonly async: boolean;
  readonly stream: number | null;
}

export interface PlanFree extends PlanOpBase {
  readonly kind: 'free';
  readonly buffer: number;
  readonly async: boolean;
  readonly stream: number | null;
}

/** Capture plan.graphs[graph] on its stream (begin capture, issue nodes, end, instantiate). */
export interface PlanGraphCapture extends PlanOpBase {
  readonly kind: 'graphCapture';
  readonly graph: number;
}

/** cudaGraphLaunch of the instantiated graph `count` times in a row on `stream`. */
export interface PlanGraphLaunch extends PlanOpBase {
  readonly kind: 'graphLaunch';
  readonly graph: number;
  readonly stream: number;
  readonly count: number;
}

/** nvtxRangePushA / nvtxRangePop on the issuing thread; always balanced within a thread. */
export interface PlanRangePush extends PlanOpBase {
  readonly kind: 'rangePush';
  readonly name: string;
}

export interface PlanRangePop extends PlanOpBase {
  readonly kind: 'rangePop';
}

export type CollectiveKind = 'allReduce' | 'reduceScatter' | 'allGather' | 'broadcast';
export type PlanDtype =
  | 'int8'
  | 'uint8'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'uint64'
  | 'float16'
  | 'bfloat16'
  | 'float32'
  | 'float64';
export type PlanReduceOp = 'sum' | 'prod' | 'max' | 'min' | 'avg';

/** Bytes of one element of each dtype. */
export const dtypeBytes: Readonly<Record<PlanDtype, number>> = {
  int8: 1,
  uint8: 1,
  int32: 4,
  uint32: 4,
  int64: 8,
  uint64: 8,
  float16: 2,
  bfloat16: 2,
  float32: 4,
  float64: 8,
};

/** A device group: one communicator, member i (rank i) is `devices[i]`. */
export interface PlanGroup {
  readonly id: number;
  readonly name: string;
  /** Device ids, distinct, in rank order. */
  readonly devices: readonly number[];
}

/** One member's part of a collective (rank = its index in `members`). */
export interface PlanCollectiveMember {
  readonly device: number;
  readonly stream: number;
  readonly sendBuffer: number;
  readonly sendOffset: number;
  readonly recvBuffer: number;
  readonly recvOffset: number;
}

/**
 * A collective over a group (ncclAllReduce, ncclReduceScatter, ncclAllGather, ncclBroadcast),
 * issued by one host thread for every member inside one ncclGroupStart/End. It starts only
 * when every member's stream has reached it. `bytes` = `count` × the dtype's size, NCCL's
 * count: per member sent (allReduce, broadcast, allGather) or received (reduceScatter).
 * Sizes by member: allGather's recv and reduceScatter's send hold members × bytes. In place
 * (recv = send) the offsets follow NCCL's rule: allGather's send region is recvOffset +
 * rank × bytes, reduceScatter's recv region is sendOffset + rank × bytes.
 */
export interface PlanCollective extends PlanOpBase {
  readonly kind: 'collective';
  readonly collective: CollectiveKind;
  readonly group: number;
  readonly members: readonly PlanCollectiveMember[];
  readonly bytes: number;
  readonly count: number;
  readonly dtype: PlanDtype;
  /** Reduction of allReduce and reduceScatter; null for allGather and broadcast. */
  readonly reduce: PlanReduceOp | null;
  /** Root rank of broadcast; null otherwise. */
  readonly root: number | null;
  readonly inPlace: boolean;
  /** Requested algorithm: the backend picks ring or tree by size when "auto". */
  readonly algorithm: 'auto' | 'ring' | 'tree';
  /** Index of this collective among its group's, in issue order (the communicator's call order). */
  readonly seq: number;
}

/**
 * ncclSend / ncclRecv between two devices. The k-th send from device A to B pairs with the
 * k-th recv on B from A; `match` is the opId of the other half (same bytes and dtype). A
 * backend issues a pair together (one ncclGroupStart/End) when it reaches the later half.
 */
export interface PlanP2p extends PlanOpBase {
  readonly kind: 'send' | 'recv';
  readonly stream: number;
  readonly device: number;
  readonly peer: number;
  readonly buffer: number;
  readonly offset: number;
  readonly bytes: number;
  readonly count: number;
  readonly dtype: PlanDtype;
  readonly match: number;
}

export type PlanOp =
  | PlanCopy
  | PlanKernel
  | PlanMemset
  | PlanEventRecord
  | PlanStreamWait
  | PlanEventSync
  | PlanStreamSync
  | PlanDeviceSync
  | PlanHostFunc
  | PlanHostWork
  | PlanMalloc
  | PlanFree
  | PlanGraphCapture
  | PlanGraphLaunch
  | PlanRangePush
  | PlanRangePop
  | PlanCollective
  | PlanP2p;

export type PlanOpKind = PlanOp['kind'];

export interface Plan {
  readonly version: 1;
  readonly name: string;
  readonly devices: readonly PlanDevice[];
  readonly buffers: readonly PlanBuffer[];
  /** Every device's legacy default stream comes first (id = device id). */
  readonly streams: readonly PlanStream[];
  readonly events: readonly PlanEvent[];
  /** Groups of devices that collectives run over. */
  readonly groups: readonly PlanGroup[];
  readonly graphs: readonly PlanGraph[];
  readonly threads: readonly PlanThread[];
  /** Ops over all threads and graphs (graph nodes counted once, not per launch). */
  readonly opCount: number;
  /** GPU and host ops a full run executes: graph nodes counted per launch. */
  readonly executedOpCount: number;
  /** Sum of declared durations (timed kernels, host work, host functions), per launch for graphs. */
  readonly declaredDurationNs: number;
}
