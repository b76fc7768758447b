import type { Trace } from '@streamscope/trace';
import type { AnalysisContext } from './context.ts';
import { buildContext } from './context.ts';
import { GapAttributor } from './gap-causes.ts';
import { summarizeGaps } from './gap-report.ts';
import type { GapRecords } from './gaps.ts';
import { findDeviceGaps, findStreamGaps } from './gaps.ts';
import { metricsOf } from './metrics.ts';
import { exposedCommunicationRule } from './rules/comm-rules.ts';
import { launchLinksDisagreeRule } from './rules/data-rules.ts';
import { rankAnalysis, rankStragglerRule } from './ranks.ts';
import { copyEngineHolBlockingRule } from './rules/hol-blocking.ts';
import { deviceSyncRule, gpuGapsRule, lowUtilizationRule } from './rules/idle-rules.ts';
import { defaultStreamSerializationRule, missedOverlapRule } from './rules/overlap-rules.ts';
import { pipelineBubbleRule } from './rules/pipeline-rules.ts';
import type { Rule, RuleInput } from './rules/rule-input.ts';
import { pageableCopyRule, syncCopyRule, syncMemsetRule } from './rules/transfer-rules.ts';
import { copyStats, kernelStats } from './stats.ts';
import { stepReport } from './steps.ts';
import type { Analysis, AnalysisOptions, Finding, TimeWindow } from './types.ts';

/** The rules in `ruleIds` order. */
const rules: readonly Rule[] = [
  pageableCopyRule,
  syncCopyRule,
  syncMemsetRule,
  deviceSyncRule,
  gpuGapsRule,
  lowUtilizationRule,
  defaultStreamSerializationRule,
  copyEngineHolBlockingRule,
  missedOverlapRule,
  exposedCommunicationRule,
  pipelineBubbleRule,
  rankStragglerRule,
  launchLinksDisagreeRule,
];

/** Gaps of both kinds with their causes (the raw columns, before summarizing). */
function findGaps(ctx: AnalysisContext): { stream: GapRecords; device: GapRecords } {
  const why = new GapAttributor(ctx);
  return { stream: findStreamGaps(ctx, why), device: findDeviceGaps(ctx, why) };
}

/**
 * Metrics, gaps with causes, rule findings and `nsys stats`-like tables for `trace`, or for the
 * ops touching `window`. The result is plain JSON (no typed arrays), ready to serve.
 */
export function analyzeTrace(
  trace: Trace,
  window?: TimeWindow,
  options: Partial<AnalysisOptions> = {},
): Analysis {
  const ctx = buildContext(trace, window, options);
  const metrics = metricsOf(ctx);
  const gaps = findGaps(ctx);
  const steps = stepReport(ctx, metrics.launchLatency.linksDisagree !== null);
  const input: RuleInput = {
    ctx,
    metrics,
    streamGaps: gaps.stream,
    deviceGaps: gaps.device,
    steps,
  };
  const findings: Finding[] = [];
  for (const rule of rules) {
    const found = rule(input);
    if (found !== undefined) {
      findings.push(found);
    }
  }
  findings.sort((a, b) => b.estimatedSavingNs - a.estimatedSavingNs);
  const ranks = rankAnalysis(ctx);
  return {
    metrics,
    gaps: { stream: summarizeGaps(ctx, gaps.stream), device: summarizeGaps(ctx, gaps.device) },
    findings,
    kernelStats: kernelStats(ctx),
    copyStats: copyStats(ctx),
    steps,
    ...(ranks === undefined ? {} : { ranks }),
  };
}
