/** Overlap, utilization, gaps and their causes, launch latency, rules and run-vs-run comparison. */
export type {
  Analysis,
  AnalysisOptions,
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
  KernelStat,
  LaunchLatencyMetrics,
  Metrics,
  OverlapMetrics,
  QueueDepth,
  RuleId,
  RunSummary,
  Severity,
  StreamBusy,
  TimeWindow,
} from './types.ts';
export { defaultAnalysisOptions, gapCauses, ruleIds } from './types.ts';
export { summarizeRun, computeMetrics } from './metrics.ts';
