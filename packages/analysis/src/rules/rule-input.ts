import { formatDurationNs } from '@streamscope/trace';
import type { AnalysisContext } from '../context.ts';
import type { GapRecords } from '../gaps.ts';
import type { Finding, Metrics, RuleId, Severity } from '../types.ts';

/** What every rule reads: the shared context, the metrics and both gap tables. */
export interface RuleInput {
  readonly ctx: AnalysisContext;
  readonly metrics: Metrics;
  readonly streamGaps: GapRecords;
  readonly deviceGaps: GapRecords;
}

export type Rule = (input: RuleInput) => Finding | undefined;

export function finding(
  ruleId: RuleId,
  severity: Severity,
  title: string,
  message: string,
  opIndices: readonly number[],
  estimatedSavingNs: number,
  maxOps: number,
): Finding {
  return {
    ruleId,
    severity,
    title,
    message,
    opIndices: opIndices.slice(0, maxOps),
    estimatedSavingNs: Math.max(0, estimatedSavingNs),
  };
}

/** "1.20 ms (3.4% of the run)". */
export function nsAndShare(durNs: number, makespanNs: number): string {
  const share = makespanNs > 0 ? ` (${((100 * durNs) / makespanNs).toFixed(1)}% of the run)` : '';
  return `${formatDurationNs(durNs)}${share}`;
}

/**
 * Device-gap time explained by each host call, for rules that blame blocking calls: sums the
 * device gaps whose cause op is `op`, keyed by op.
 */
export function deviceGapNsByCauseOp(input: RuleInput): Map<number, number> {
  const byOp = new Map<number, number>();
  const gaps = input.deviceGaps;
  for (let g = 0; g < gaps.count; g++) {
    const op = gaps.causeOp[g]!;
    if (op >= 0) {
      byOp.set(op, (byOp.get(op) ?? 0) + gaps.toNs[g]! - gaps.fromNs[g]!);
    }
  }
  return byOp;
}

/** `ops` sorted by a weight, largest first (ties by index). */
export function byWeightDesc(ops: number[], weight: (op: number) => number): number[] {
  return ops.sort((a, b) => weight(b) - weight(a) || a - b);
}
