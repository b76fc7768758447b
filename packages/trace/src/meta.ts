/** Where a trace came from. */
export type SourceFormat =
  | 'streamscope-cuda'
  | 'streamscope-sim'
  | 'nsys-json'
  | 'nsys-sqlite'
  | 'chrome-trace'
  | 'streamscope-trace';

/** How the op times were taken. */
export type TimingMethod = 'cupti' | 'events' | 'sim' | 'imported';

/** One rank of a distributed job, as its profiler recorded it (kineto `distributedInfo`). */
export interface DistributedInfo {
  readonly rank: number;
  readonly worldSize: number;
  /** Communication backend: "nccl", "gloo", …; "" when the file does not say. */
  readonly backend: string;
}

export interface TraceMeta {
  readonly title: string;
  readonly sourceFormat: SourceFormat;
  /** Producer and its version, e.g. "nsys 2025.3.1" or "streamscope-sim 0.1 (profile h200)". */
  readonly producer: string;
  readonly timingMethod: TimingMethod;
  /** Absolute time of ns 0 in the producer's clock, as a decimal int64 string (JSON has no int64). */
  readonly originNs: string;
  /**
   * Unix-epoch ns of the producer clock's zero, as a decimal int64 string, where the source gives
   * a wall clock (kineto `baseTimeNanoseconds`, nsys `TARGET_INFO_SESSION_START_TIME`): an op at
   * t ns lies at clockEpochNs + originNs + t ns since 1970. Traces from several files line up on it.
   */
  readonly clockEpochNs?: string;
  /** Set when the trace is one rank of a distributed job. */
  readonly distributed?: DistributedInfo;
  /** ISO 8601 time the trace was made, when known. */
  readonly createdAt?: string;
  /** Device profile the simulator used, or the workload preset that ran. */
  readonly profile?: string;
  readonly preset?: string;
  /** Things a reader should know: recovered import problems, dropped records. */
  readonly warnings?: readonly string[];
}

export function defaultMeta(overrides: Partial<TraceMeta> = {}): TraceMeta {
  return {
    title: 'untitled',
    sourceFormat: 'streamscope-trace',
    producer: 'streamscope',
    timingMethod: 'sim',
    originNs: '0',
    ...overrides,
  };
}
