/** A time window in ns since the trace origin, both ends inclusive of ops that touch them. */
export interface TimeWindow {
  readonly fromNs: number;
  readonly toNs: number;
}

/** Busy time (ns, union of intervals) per GPU engine class. */
export interface EngineBusyNs {
  /** The SMs: every kernel, whatever its class (see `KernelClassBusyNs` for compute alone). */
  readonly compute: number;
  readonly copyHtoD: number;
  readonly copyDtoH: number;
  readonly copyDtoD: number;
  readonly copyPtoP: number;
  readonly memset: number;
}

/** The one-line result of a run (`streamscope run --summary`). */
export interface RunSummary {
  /** First GPU op start to last GPU op end, in ns. */
  readonly makespanNs: number;
  /** Ops on GPU streams (kernels, copies, memsets, waits…): the sum of `opCounts`. */
  readonly gpuOpCount: number;
  /** Everything else the trace holds: host API calls and other host-thread ops. */
  readonly hostOpCount: number;
  /** GPU ops by `opKindName`. */
  readonly opCounts: Record<string, number>;
  readonly busyNsByEngine: EngineBusyNs;
  /** |∪copies ∩ ∪compute kernels| / |∪copies|; null when there are no copies. */
  readonly copyComputeOverlap: number | null;
  /**
   * |∪communication ∩ ∪compute| / |∪communication|; null with no communication kernels. The
   * sends and receives of pipeline stages are not counted (see `OverlapMetrics.commCompute`).
   */
  readonly commComputeOverlap: number | null;
}

/**
 * Time covered by each kernel class (union per class, summed over devices), in ns: compute
 * kernels, communication kernels (NCCL/RCCL collectives and point-to-point) and memory kernels
 * (memcpy/memset kernels; CUDA's own copies and memsets are not kernels).
 */
export interface KernelClassBusyNs {
  readonly computeNs: number;
  readonly communicationNs: number;
  readonly memoryNs: number;
}

/**
 * Copy/compute overlap = |∪copies ∩ ∪compute kernels| / |∪copies| for all copies and per
 * direction, and communication/compute overlap. Compute excludes communication and memory kernels.
 */
export interface OverlapMetrics {
  readonly all: number;
  readonly htoD: number;
  readonly dtoH: number;
  readonly dtoD: number;
  readonly ptoP: number;
  /** |∪copies ∩ ∪kernels| in ns. */
  readonly overlappedNs: number;
  /** |∪copies| in ns. */
  readonly copyBusyNs: number;
  /**
   * |∪communication ∩ ∪compute| / |∪communication|, in [0, 1]; null with no communication.
   * Communication here leaves out the sends and receives of pipeline stages (ranks that pass
   * data point to point): a stage's receive waits out the schedule's bubble, which overlapping
   * cannot hide (the `pipeline-bubble` finding says what can).
   */
  readonly commCompute: number | null;
  /** Communication time with no compute kernel beside it (|∪communication| − the overlap), ns. */
  readonly exposedCommunicationNs: number;
}

export interface StreamBusy {
  readonly track: number;
  readonly label: string;
  readonly busyNs: number;
  /** busyNs / the analysed span. */
  readonly utilization: number;
  readonly opCount: number;
}

/** How long, in total, k kernels (or copies) ran at once: `nsAtLevel[k]`. */
export interface ConcurrencyProfile {
  readonly kernelNsAtLevel: number[];
  readonly copyNsAtLevel: number[];
  readonly maxKernels: number;
  readonly maxCopies: number;
  /** Time-weighted average over `bins` equal bins of the span, for a small chart. */
  readonly binFromNs: number;
  readonly binNs: number;
  readonly kernelsPerBin: number[];
  readonly copiesPerBin: number[];
}

/** Distribution of a set of durations, in ns. */
export interface Distribution {
  readonly count: number;
  readonly meanNs: number;
  readonly minNs: number;
  readonly p50Ns: number;
  readonly p90Ns: number;
  readonly p99Ns: number;
  readonly maxNs: number;
}

export interface LaunchLatencyMetrics {
  /**
   * GPU start − end of the API call that enqueued the op, over ops with a known call; empty
   * (count 0) when `linksDisagree` says the figures cannot be real.
   */
  readonly all: Distribution;
  readonly kernels: Distribution;
  readonly copies: Distribution;
  /** Set when most launch→op links are longer than the GPU's whole span; null otherwise. */
  readonly linksDisagree: LaunchLinkMismatch | null;
}

/**
 * Launch→op links that no queue explains: most linked ops started later after their call than
 * the whole GPU span lasts (plus `maxLaunchLatencyNs`), so the host and GPU clocks or the
 * correlation ids disagree and launch latency is left out.
 */
export interface LaunchLinkMismatch {
  /** Ops with a linked call, and how many of them start more than the span after it. */
  readonly linkedOps: number;
  readonly impossibleOps: number;
  /** The longest and the median link (GPU start − call end), in ns. */
  readonly maxNs: number;
  readonly p50Ns: number;
  /** First GPU op start to last GPU op end, in ns. */
  readonly gpuSpanNs: number;
}

export interface QueueDepth {
  readonly track: number;
  readonly label: string;
  /** Most ops enqueued by the host and not yet started on the GPU at once. */
  readonly maxDepth: number;
  /** Time-weighted mean depth over the analysed span. */
  readonly meanDepth: number;
  /** Time the queue was full (`launchQueueCapacity` or deeper): a launch on it blocks the host. */
  readonly fullNs: number;
}

export interface CopyDirectionBandwidth {
  readonly kind: string;
  readonly count: number;
  readonly bytes: number;
  /** Sum of op durations. */
  readonly totalNs: number;
  /**
   * bytes / totalNs, in GB/s (10^9 B/s), over the copies whose size is known; NaN (null in
   * JSON) when none is (an import that recorded no sizes): unknown, not 0 GB/s. Likewise below.
   */
  readonly avgGBps: number;
  readonly minGBps: number;
  readonly maxGBps: number;
}

export interface Metrics {
  readonly window: TimeWindow;
  readonly makespanNs: number;
  /** First and last GPU op (clipped to the window). */
  readonly gpuFromNs: number;
  readonly gpuToNs: number;
  readonly gpuOpCount: number;
  readonly opCounts: Record<string, number>;
  readonly busyNsByEngine: EngineBusyNs;
  readonly kernelClasses: KernelClassBusyNs;
  /** |∪ all GPU work| in ns, and its share of the makespan. */
  readonly deviceBusyNs: number;
  readonly deviceUtilization: number;
  readonly overlap: OverlapMetrics;
  readonly streams: StreamBusy[];
  readonly concurrency: ConcurrencyProfile;
  readonly bandwidth: CopyDirectionBandwidth[];
  readonly launchLatency: LaunchLatencyMetrics;
  readonly queueDepth: QueueDepth[];
  /** Time at least one stream's launch queue was full (union over streams), in ns. */
  readonly launchQueueFullNs: number;
}

/** Why a stream or the device sat idle. Stable strings: JSON, CLI and UI use them. */
export type GapCause =
  | 'event-wait'
  | 'legacy-default-stream'
  | 'engine-busy'
  | 'host-sync'
  | 'sync-copy'
  | 'alloc-sync'
  | 'host-busy'
  | 'launch-latency'
  | 'unknown';

export const gapCauses: readonly GapCause[] = [
  'event-wait',
  'legacy-default-stream',
  'engine-busy',
  'host-sync',
  'sync-copy',
  'alloc-sync',
  'host-busy',
  'launch-latency',
  'unknown',
];

export interface Gap {
  /** The stream track, or -1 for a device-wide gap. */
  readonly track: number;
  readonly deviceId: number;
  readonly fromNs: number;
  readonly toNs: number;
  readonly durNs: number;
  readonly cause: GapCause;
  /**
   * The op that ended before the gap (-1 for a device gap, or for a stream's lead-in: the time
   * from its device's first op to the stream's first op) and the one that ended the gap.
   */
  readonly beforeOp: number;
  readonly afterOp: number;
  /** The op that explains the gap (event record, blocking host call, barrier op, engine op), or -1. */
  readonly causeOp: number;
  /** The host range (index into `trace.ranges`) the host was busy in, for 'host-busy'; or -1. */
  readonly causeRange: number;
  /**
   * The part of `durNs` its cause accounts for, what removing the cause could save on this gap:
   * a host call or range only the time the host spent in it before the op started; the whole gap
   * for event, barrier and engine waits; 0 for launch latency and unknown waits.
   */
  readonly causeNs: number;
  /** One sentence with the trace's names and numbers. */
  readonly detail: string;
}

export interface GapSummary {
  readonly count: number;
  readonly totalNs: number;
  readonly countByCause: Record<GapCause, number>;
  readonly nsByCause: Record<GapCause, number>;
  /** The largest gaps (at most `maxListed`), in start order. */
  readonly listed: Gap[];
  readonly truncated: boolean;
}

export interface GapReport {
  readonly stream: GapSummary;
  readonly device: GapSummary;
}

export type Severity = 'info' | 'warning' | 'error';

export type RuleId =
  | 'pageable-copy'
  | 'sync-copy'
  | 'sync-memset'
  | 'device-sync'
  | 'gpu-gaps'
  | 'low-utilization'
  | 'default-stream-serialization'
  | 'copy-engine-hol-blocking'
  | 'missed-overlap'
  | 'exposed-communication'
  | 'pipeline-bubble'
  | 'rank-straggler'
  | 'launch-links-disagree';

export const ruleIds: readonly RuleId[] = [
  'pageable-copy',
  'sync-copy',
  'sync-memset',
  'device-sync',
  'gpu-gaps',
  'low-utilization',
  'default-stream-serialization',
  'copy-engine-hol-blocking',
  'missed-overlap',
  'exposed-communication',
  'pipeline-bubble',
  'rank-straggler',
  'launch-links-disagree',
];

export interface Finding {
  readonly ruleId: RuleId;
  readonly severity: Severity;
  readonly title: string;
  /** Generated from the trace's numbers: what happened and what to change. */
  readonly message: string;
  /** The ops it points at (at most `maxFindingOps`, largest effect first). */
  readonly opIndices: number[];
  /** How many ops it points at in all: more than `opIndices` holds when they were capped. */
  readonly opCount: number;
  readonly estimatedSavingNs: number;
}

/** `nsys stats cuda_gpu_kern_sum`-like row. */
export interface KernelStat {
  readonly name: string;
  /** 'compute', 'communication' or 'memory' (see `KernelClassBusyNs`). */
  readonly kernelClass: string;
  readonly count: number;
  readonly totalNs: number;
  readonly avgNs: number;
  readonly medNs: number;
  readonly minNs: number;
  readonly maxNs: number;
  readonly stdDevNs: number;
  /** totalNs / the sum over all kernels. */
  readonly timeShare: number;
}

/** `nsys stats cuda_gpu_mem_time_sum` + `mem_size_sum`-like row, per copy kind and memset. */
export interface CopyStat {
  readonly kind: string;
  readonly count: number;
  readonly bytes: number;
  readonly totalNs: number;
  readonly avgNs: number;
  readonly minNs: number;
  readonly maxNs: number;
  readonly stdDevNs: number;
  readonly avgGBps: number;
  /** Copies with a pageable source or destination. */
  readonly pageableCount: number;
}

/** One training step (a `ProfilerStep#N` range, or a host range matching `stepPattern`). */
export interface StepMetrics {
  readonly name: string;
  /** The rank whose step it is, in a trace merged from several ranks. */
  readonly rank?: number;
  /** Index into `trace.ranges`, and the host thread it is on. */
  readonly range: number;
  readonly track: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly stepNs: number;
  /** Over the step's time on the GPUs of its process (summed over them), in ns. */
  readonly gpuBusyNs: number;
  readonly computeNs: number;
  /** Communication kernels other than pipeline stages' sends and receives (`pointToPointNs`). */
  readonly communicationNs: number;
  /** Of `communicationNs`, the time with no compute kernel beside it. */
  readonly exposedCommunicationNs: number;
  /**
   * Pipeline stages' send and receive kernels: transfers, and waits for the schedule's bubble
   * and for a slower stage; 0 unless the trace's ranks are pipeline stages.
   */
  readonly pointToPointNs: number;
  /** The step's time on each GPU less its busy time there. */
  readonly idleNs: number;
}

export interface StepReport {
  /** The regular expression step ranges matched. */
  readonly pattern: string;
  readonly count: number;
  readonly meanStepNs: number;
  readonly medianStepNs: number;
  readonly maxStepNs: number;
  /** Every step in time order (at most `maxListedSteps`). */
  readonly steps: StepMetrics[];
  readonly truncated: boolean;
  /** The `slowestSteps` longest steps, longest first. */
  readonly slowest: StepMetrics[];
  /**
   * Steps whose host range is longer than the whole GPU span (and far longer than the median
   * step) while launch links disagree
   * (`LaunchLatencyMetrics.linksDisagree`): their step time takes in the clock mismatch, not
   * work. Names, in time order; empty otherwise.
   */
  readonly skewedSteps: string[];
}

/** One rank of a merged trace, over its own GPU span (ns). */
export interface RankBreakdown {
  readonly rank: number;
  readonly pids: number[];
  readonly gpuOpCount: number;
  /** Its first GPU op start (ns since the trace origin) and the span to its last end. */
  readonly fromNs: number;
  readonly spanNs: number;
  /** |∪ all its GPU work|. */
  readonly busyNs: number;
  /** |∪ kernels that are not communication|, |∪ NCCL/RCCL kernels|, |∪ copies and memsets|. */
  readonly computeNs: number;
  readonly communicationNs: number;
  readonly memoryNs: number;
  /** spanNs − busyNs. */
  readonly idleNs: number;
}

/**
 * The rank the others wait for: it computes more than the median rank (diffNs = value − median),
 * or, where the ranks communicate on the GPU, spends less time in collectives than the median
 * (the others wait inside theirs: diffNs = median − value), else idles less (the others wait
 * idle: diffNs = median − value), whichever is more. Of pipeline stages, the one that computes
 * most over the window all ranks worked in (`RankAnalysis.pipeline`), by compute alone.
 */
export interface RankStraggler {
  readonly rank: number;
  readonly metric: 'compute' | 'communication' | 'idle';
  readonly valueNs: number;
  readonly medianNs: number;
  readonly diffNs: number;
  /** The least value of the metric over all ranks. */
  readonly minNs: number;
}

/** One rank of a pipeline, over the window every rank's GPU worked in (ns). */
export interface PipelineStage {
  readonly rank: number;
  /** |∪ compute kernels| in the window. */
  readonly computeNs: number;
  /** |∪ NCCL/RCCL send and receive kernels| in the window: transfers, and waits for a peer. */
  readonly pointToPointNs: number;
  /** Of `pointToPointNs`, the time with no compute kernel of the stage beside it: its waiting. */
  readonly pointToPointAloneNs: number;
  /** The window less |∪ all its GPU work|. */
  readonly idleNs: number;
}

/**
 * Ranks that pass data point to point (NCCL send/recv on at least two ranks): the stages of a
 * pipeline, measured over the window every rank's GPU worked in, [fromNs, toNs].
 */
export interface PipelineStages {
  readonly fromNs: number;
  readonly toNs: number;
  readonly stages: PipelineStage[];
}

export interface RankAnalysis {
  readonly ranks: RankBreakdown[];
  /**
   * Set when the ranks are pipeline stages: their straggler is then the bottleneck stage, the
   * one that computes most over the common window (a stage's receive waits are mostly the
   * schedule's bubble, not a sign of a slower peer).
   */
  readonly pipeline?: PipelineStages;
  readonly straggler?: RankStraggler;
}

export interface Analysis {
  readonly metrics: Metrics;
  readonly gaps: GapReport;
  readonly findings: Finding[];
  readonly kernelStats: KernelStat[];
  readonly copyStats: CopyStat[];
  readonly steps: StepReport;
  /** Per-rank breakdown and straggler, for a trace merged from 2 or more ranks. */
  readonly ranks?: RankAnalysis;
}

/** Tunables; every field has a default (`defaultAnalysisOptions`). */
export interface AnalysisOptions {
  /** Device gaps at least this long fire `gpu-gaps` (Nsight uses 500 ms; µs scale teaches). */
  readonly gpuGapThresholdNs: number;
  /** `low-utilization`: chunks of the device span, and the utilization below which one is low. */
  readonly utilizationChunks: number;
  readonly utilizationThreshold: number;
  /** `sync-copy` ignores host-to-device copies at most this big (Nsight's 64 KB exclusion). */
  readonly syncCopyMinHtoDBytes: number;
  /** A constraint released this close before an op's start counts as what held it. */
  readonly dispatchSlackNs: number;
  /** A longer unexplained wait is 'unknown', not launch latency (HTA's outlier cutoff). */
  readonly maxLaunchLatencyNs: number;
  /** A rule fires only when its estimated saving is at least this (and, where stated, a share). */
  readonly minSavingNs: number;
  readonly maxListedGaps: number;
  readonly maxFindingOps: number;
  readonly concurrencyBins: number;
  /** Host ranges whose name matches this regular expression are steps (`StepReport`). */
  readonly stepPattern: string;
  readonly maxListedSteps: number;
  readonly slowestSteps: number;
  /** A stream's launch queue is full at this depth (HTA's max queue length). */
  readonly launchQueueCapacity: number;
}

export const defaultAnalysisOptions: AnalysisOptions = {
  gpuGapThresholdNs: 10_000,
  utilizationChunks: 30,
  utilizationThreshold: 0.5,
  syncCopyMinHtoDBytes: 64 * 1024,
  dispatchSlackNs: 2_000,
  maxLaunchLatencyNs: 100_000,
  minSavingNs: 1_000,
  maxListedGaps: 500,
  maxFindingOps: 50,
  concurrencyBins: 100,
  stepPattern: '^ProfilerStep#\\d+$',
  maxListedSteps: 2000,
  slowestSteps: 5,
  launchQueueCapacity: 1024,
};

/** One metric in two runs. `ratio` = b / a (0 when a is 0). */
export interface MetricDelta {
  readonly name: string;
  readonly unit: 'ns' | 'ratio' | 'count';
  readonly a: number;
  readonly b: number;
  readonly delta: number;
  readonly ratio: number;
}

/** Ops with one name and kind on one stream (matched by stream rank), in both runs. */
export interface OpGroupDiff {
  readonly name: string;
  readonly kind: string;
  /** Stream label in run a (or b when only b has it). */
  readonly stream: string;
  readonly countA: number;
  readonly countB: number;
  readonly totalNsA: number;
  readonly totalNsB: number;
  readonly deltaNs: number;
}

/** Ops with one name and kind on any stream, in both runs. */
export interface NameTotalDiff {
  readonly name: string;
  readonly kind: string;
  readonly countA: number;
  readonly countB: number;
  readonly totalNsA: number;
  readonly totalNsB: number;
  readonly deltaNs: number;
}

/** One op matched across runs: same stream rank, kind and name, same occurrence. */
export interface OpDiff {
  readonly opA: number;
  readonly opB: number;
  readonly name: string;
  readonly stream: string;
  readonly durNsA: number;
  readonly durNsB: number;
  readonly deltaNs: number;
  /** Start in b − start in a, each relative to its run's first GPU op. */
  readonly startShiftNs: number;
}

export interface Comparison {
  readonly makespanNsA: number;
  readonly makespanNsB: number;
  /** makespan a / makespan b: above 1 means b is faster. */
  readonly speedup: number;
  readonly metrics: MetricDelta[];
  readonly matchedOps: number;
  readonly unmatchedA: number;
  readonly unmatchedB: number;
  /** Largest |deltaNs| first. */
  readonly groups: OpGroupDiff[];
  /** The groups added up per kind and name over all streams; largest |deltaNs| first. */
  readonly names: NameTotalDiff[];
  readonly largestDiffs: OpDiff[];
  readonly findings: {
    readonly onlyA: RuleId[];
    readonly onlyB: RuleId[];
    readonly both: RuleId[];
  };
}
