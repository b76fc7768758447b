/** Overlap, utilization, gaps and their causes, launch latency, rules and run-vs-run comparison. */
export type {
  Analysis,
  AnalysisOptions,
  Comparison,
  ConcurrencyProfile,
  CopyDirectionBandwidth,
  CopyStat,
  Distribution,
  EngineBusyNs,
  Finding,
  Gap,
  GapCause,
  GapReport,
  GapSummary,
  KernelClassBusyNs,
  KernelStat,
  LaunchLatencyMetrics,
  MetricDelta,
  Metrics,
  NameTotalDiff,
  OpDiff,
  OpGroupDiff,
  OverlapMetrics,
  PipelineStage,
  PipelineStages,
  QueueDepth,
  RankAnalysis,
  RankBreakdown,
  RankStraggler,
  RuleId,
  RunSummary,
  Severity,
  StepMetrics,
  StepReport,
  StreamBusy,
  TimeWindow,
} from './types.ts';
export { defaultAnalysisOptions, gapCauses, ruleIds } from './types.ts';
export { summarizeRun, computeMetrics } from './metrics.ts';
export { analyzeTrace } from './analyze.ts';
export { compareTraces, matchOps } from './compare.ts';
export { launchLatencies } from './launch.ts';
export type { QueueDepthSeries } from './queue-depth.ts';
export { queueDepthSeries, queueDepthSeriesByStream } from './queue-depth.ts';
export type { LaunchRangeSegments } from './launch-ranges.ts';
export { launchRangesByStream } from './launch-ranges.ts';
export { copyBandwidthsGBps } from './stats.ts';
export { KernelClass, kernelClassOfName } from './kernel-classes.ts';
