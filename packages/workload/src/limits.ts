/** Bounds that keep any spec from running away. Servers may pass stricter ones. */
export interface WorkloadLimits {
  /** Ops executed by a full run (graph nodes counted per launch). */
  readonly maxOps: number;
  /** Sum of declared durations (timed kernels, host work, host functions). */
  readonly maxTotalDurationNs: number;
  /** One op's declared duration. */
  readonly maxOpDurationNs: number;
  /** Device memory per device, unless a device declares less. */
  readonly deviceMemoryBytes: number;
  /** Pinned plus pageable host memory over all host buffers. */
  readonly hostMemoryBytes: number;
  /** Bytes moved or set by all copies and memsets together (per launch for graphs). */
  readonly maxTotalCopyBytes: number;
  /** Bytes over all members of all collectives and sends together (region sizes). */
  readonly maxTotalCollectiveBytes: number;
  readonly maxIterationsPerBlock: number;
  readonly maxDevices: number;
  readonly maxStreams: number;
  readonly maxEvents: number;
  readonly maxBuffers: number;
  readonly maxThreads: number;
  readonly maxGraphLaunchCount: number;
  /** How deeply repeat/range/graph blocks may nest. */
  readonly maxNesting: number;
}

export const defaultLimits: WorkloadLimits = {
  maxOps: 2_000_000,
  maxTotalDurationNs: 120e9,
  maxOpDurationNs: 10e9,
  deviceMemoryBytes: 80 * 1024 ** 3,
  hostMemoryBytes: 64 * 1024 ** 3,
  maxTotalCopyBytes: 4 * 1024 ** 4,
  maxTotalCollectiveBytes: 4 * 1024 ** 4,
  maxIterationsPerBlock: 1e9,
  maxDevices: 16,
  maxStreams: 1024,
  maxEvents: 65_536,
  maxBuffers: 4096,
  maxThreads: 64,
  maxGraphLaunchCount: 100_000,
  maxNesting: 16,
};
