import type { LinkProfile } from './link-model.ts';

/** Which copies a copy engine takes ('peer': copies between GPUs only). */
export type CopyEngineRole = 'htod' | 'dtoh' | 'any' | 'peer';

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
  /** cudaMalloc and cudaFree: fixed part, plus per GiB of the buffer. */
  readonly malloc: number;
  readonly mallocPerGiB: number;
  readonly free: number;
  readonly freePerGiB: number;
  /** cudaMallocHost: fixed part; pinning adds bytes / pinBytesPerS. */
  readonly mallocHost: number;
  readonly pinBytesPerS: number;
  readonly mallocAsync: number;
  readonly launchHostFunc: number;
  /** cudaGraphLaunch: fixed part plus per node. */
  readonly graphLaunch: number;
  readonly graphLaunchPerNode: number;
  /** Capture and instantiate: fixed part plus per node. */
  readonly graphInstantiate: number;
  readonly graphInstantiatePerNode: number;
}

/** The calls whose first use in a process costs more (profile.firstUseNs), by ApiCosts name. */
export const firstUseCalls = [
  'launchKernel',
  'memcpy',
  'memset',
  'eventRecord',
  'streamWait',
  'malloc',
  'mallocAsync',
] as const;
export type FirstUseCall = (typeof firstUseCalls)[number];

/**
 * More host time in the first call of each kind in a process, ns: the runtime loads kernel
 * modules lazily and sets up copy paths, events and the stream-ordered pool on first use
 * (H100/H200, driver 580: a first cudaLaunchKernel 45–60 µs against 7 µs for the next ones).
 */
export type FirstUseCosts = Readonly<Record<FirstUseCall, number>>;

/**
 * How the driver copies pageable host memory: through pinned staging buffers of `chunkBytes`.
 * To the device the host stages the first chunk before the engine starts, and a copy of at most
 * one chunk returns once staged (its DMA runs on, like a pinned copy); to the host the engine
 * fills a chunk and the host copies the last one out after the engine ends. Longer copies run
 * at `copyBandwidthBytesPerS.*Pageable` (what staging sustains) and the call returns when done.
 */
export interface PageableStaging {
  readonly chunkBytes: number;
  /** Host memcpy rate into a staging buffer (the lead before a copy to the device starts). */
  readonly htodStagingBytesPerS: number;
  /** Host memcpy rate out of a staging buffer (the tail after a copy to the host ends). */
  readonly dtohStagingBytesPerS: number;
}

/** Gaps where work moves between a copy engine and the SMs within one stream, ns. */
export interface CrossEngineGaps {
  /** After a copy (or memset), before a kernel. */
  readonly toCompute: number;
  /** After a kernel, before a copy. */
  readonly toCopy: number;
}

/** Where each value of a profile comes from. */
export interface ProfileProvenance {
  /** Measured by `streamscope calibrate`: on which device, with which driver, when. */
  readonly measured: {
    readonly device: string;
    readonly driver: string;
    readonly date: string;
    readonly values: readonly string[];
  };
  /** Values taken from another profile, unmeasured. */
  readonly inherited: { readonly from: string; readonly values: readonly string[] };
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
  /** The same for copies to the host (the directions lose different shares). */
  readonly duplexFactorDtoh: number;
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
  /** Host time between one API call's return and the next call (the issuing loop's own), ns. */
  readonly hostCallGapNs: number;
  /**
   * Host time between a cudaGraphLaunch's return and the next call, ns: longer than after a kernel
   * launch (the issuing loop hands over a launch of many nodes).
   */
  readonly graphCallGapNs: number;
  /** More host time after a thread's first API call (first use of the runtime), ns. */
  readonly firstCallGapNs: number;
  readonly firstUseNs: FirstUseCosts;
  readonly crossEngineGapNs: CrossEngineGaps;
  /** Gap between two copies on one copy engine, ns. */
  readonly copyEngineGapNs: number;
  /** An event record completes this long after the op before it on its stream, ns. */
  readonly eventRecordGapNs: number;
  /** A stream waiting on an event goes on this long after the record completes, ns. */
  readonly eventWaitGapNs: number;
  /** Pageable copies staged in chunks; null: a pageable copy is one copy at the pageable rate. */
  readonly pageable: PageableStaging | null;
  /** Whether cudaMalloc / cudaFree wait for the device to go idle first. */
  readonly mallocSyncs: boolean;
  readonly freeSyncs: boolean;
  /**
   * Timed blocks are held on a crowded SM: the blocks that land on SMs already holding W warps
   * end up to (W − crowdedStartWarps) × crowdedStartNsPerWarp late, spread over the hold levels
   * of crowding.ts (0: never).
   */
  readonly crowdedStartWarps: number;
  readonly crowdedStartNsPerWarp: number;
  /**
   * Stream priorities act at block boundaries: a kernel that finds the SMs full of a
   * lower-priority kernel's blocks starts once those blocks end, on average this share of their
   * duration after it became ready (its arrival falls anywhere in the running blocks' life;
   * measured at six phases 0.19 on an H100, 0.16 on an H200). 0: as soon as a block slot frees.
   */
  readonly priorityWaitShare: number;
  /** Gap between the end of the op before a graph launch and the graph's first node, ns. */
  readonly graphLaunchGapNs: number;
  /** The first launch of a graph uploads it: this much more host time, ns. */
  readonly graphFirstLaunchExtraNs: number;
  /** How the host's GPUs reach each other (collectives, send/recv); absent: a one-GPU host. */
  readonly links?: LinkProfile;
  /** Which values were measured and which inherited; absent for published figures. */
  readonly provenance?: ProfileProvenance;
}
