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

/**
 * What removing some stream gaps would save, with the other streams left as they are: each
 * stream's last op moves earlier by the held time on it, and the run ends when the last stream
 * does. Optimistic (it assumes the device has room to run the streams side by side), and never
 * more than the held time itself.
 */
export function projectedSavingNs(input: RuleInput, held: (g: number) => boolean): number {
  const { ctx, streamGaps } = input;
  const { walk } = ctx;
  const heldNs = new Float64Array(ctx.trace.tracks.length);
  let anyHeld = false;
  for (let g = 0; g < streamGaps.count; g++) {
    if (held(g)) {
      heldNs[streamGaps.track[g]!]! += streamGaps.toNs[g]! - streamGaps.fromNs[g]!;
      anyHeld = true;
    }
  }
  if (!anyHeld) {
    return 0;
  }
  let projectedEndNs = -Infinity;
  for (const tracks of ctx.tracksOfDevice) {
    for (const track of tracks) {
      let lastEndNs = -Infinity;
      for (let p = walk.trackFrom[track]!; p < walk.trackFrom[track + 1]!; p++) {
        lastEndNs = Math.max(lastEndNs, walk.endNs[p]!);
      }
      if (lastEndNs > -Infinity) {
        projectedEndNs = Math.max(
          projectedEndNs,
          Math.min(lastEndNs, ctx.window.toNs) - heldNs[track]!,
        );
      }
    }
  }
  // Every stream ends at least (its end − its held time) ≥ (its end − the most held), so the
  // saving is bounded by the largest held time on one stream.
  return Math.max(0, Math.min(ctx.gpuToNs, ctx.window.toNs) - projectedEndNs);
}
