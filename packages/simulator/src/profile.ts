/** Which copies a copy engine takes. */
export type CopyEngineRole = 'htod' | 'dtoh' | 'any';

/** Copy bandwidths in bytes per second, by direction and host memory kind. */
export interface CopyBandwidths {
  readonly htodPinned: number;
  readonly htodPageable: number;
  readonly dtohPinned: number;
  readonly dtohPageable: number;
  /** Device to device on one GPU (runs on the SMs, not on a copy engine). */
  readonly dtod: number;
  /** Between two GPUs. */
  readonly ptop: number;
  /** Host to host (a CPU memcpy). */
  readonly htoh: number;
}

/** Host time of each CUDA API call, ns. A blocking call also waits for what it waits for. */
export interface ApiCosts {
  readonly launchKernel: number;
  readonly memcpy: number;
  readonly memset: number;
  readonly eventRecord: number;
  readonly streamWait: number;
  /** Fixed part of cudaStream/Event/DeviceSynchronize (besides the wait). */
  readonly sync: number;
  readonly malloc: number;
  readonly free: number;
  /** cudaMallocHost: fixed part; pinning adds bytes / pinBytesPerS. */
  readonly mallocHost: number;
  readonly pinBytesPerS: number;
  readonly mallocAsync: number;
  readonly launchHostFunc: number;
  readonly graphLaunch: number;
  /** Capture and instantiate: fixed part plus per node. */
  readonly graphInstantiate: number;
  readonly graphInstantiatePerNode: number;
}

/** The GPU as the trace's DeviceInfo shows it, plus what the block scheduler needs. */
export interface ProfileDevice {
  readonly name: string;
  readonly computeCapability: string;
  readonly smCount: number;
  readonly copyEngineCount: number;
  readonly memoryBytes: number;
  /** [greatest, least] (numerically lower is higher priority); [0, 0] = no priorities. */
  readonly priorityRange: readonly [number, number];
  readonly maxThreadsPerSm: number;
  readonly maxBlocksPerSm: number;
  readonly sharedMemPerSmBytes: number;
}

/**
 * Everything the simulator knows about a GPU and its host: engines, queues, bandwidths,
 * latencies. Built-in profiles are in `profiles.ts`; `profileFromCalibration` makes one from
 * what the native executor measures.
 */
export interface DeviceProfile {
  readonly name: string;
  readonly title: string;
  /** Where the numbers come from. */
  readonly source: string;
  readonly device: ProfileDevice;
  /**
   * 1: one hardware queue per engine (compute, copy), as before Kepler: work enters them in
   * issue order and a blocked head blocks everything behind it. >1: Hyper-Q, streams map onto
   * `min(hwQueues, connections)` queues that feed every engine.
   */
  readonly hwQueues: number;
  /** CUDA_DEVICE_MAX_CONNECTIONS (8 by default). */
  readonly connections: number;
  readonly maxConcurrentKernels: number;
  /**
   * Fermi: kernels issued back-to-back from different streams signal completion only when
   * all of them have finished (the blog's breadth-first result on the C2050).
   */
  readonly delayedKernelSignal: boolean;
  readonly copyEngines: readonly CopyEngineRole[];
  readonly copyBandwidthBytesPerS: CopyBandwidths;
  /** cudaMemset throughput (runs on the SMs). */
  readonly memsetBytesPerS: number;
  /** Fraction of bandwidth each direction keeps while HtoD and DtoH run at once. */
  readonly duplexFactor: number;
  /** Fixed cost of a copy on its engine (DMA setup), ns. */
  readonly copyFixedNs: number;
  /** Fixed-work kernels: iterations a thread completes per ns on an unsaturated SM. */
  readonly workIterationsPerNs: number;
  /** Resident warps per SM above which fixed-work kernels slow down (issue slots shared). */
  readonly workSaturationWarpsPerSm: number;
  /** What a timed kernel's blocks take beyond their duration (launch and teardown), ns. */
  readonly spinOffsetNs: number;
  readonly api: ApiCosts;
  /** From the end of a launch call until the GPU can start the work, ns. */
  readonly submitLatencyNs: number;
  /** Gap between the end of one op and the start of the next in the same stream, ns. */
  readonly streamGapNs: number;
  /** Gap between consecutive nodes of a graph launch, ns (smaller than for launches). */
  readonly graphNodeGapNs: number;
  /** From the stream reaching a host function until it runs, ns (measured p50 108 µs on H200). */
  readonly hostFuncLatencyNs: number;
  /** Device-side time of cudaMallocAsync / cudaFreeAsync, ns. */
  readonly asyncAllocNs: number;
  /** Launches that may be pending on a device before a launch call blocks the host. */
  readonly maxPendingLaunches: number;
}
