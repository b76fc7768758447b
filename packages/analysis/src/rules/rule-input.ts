import { IdNumberMap, formatDurationNs } from '@streamscope/trace';
import type { AnalysisContext } from '../context.ts';
import type { GapRecords } from '../gaps.ts';
import type { Finding, Metrics, RuleId, Severity, StepReport } from '../types.ts';

/** What every rule reads: the shared context, the metrics and both gap tables. */
export interface RuleInput {
  readonly ctx: AnalysisContext;
  readonly metrics: Metrics;
  readonly streamGaps: GapRecords;
  readonly deviceGaps: GapRecords;
  readonly steps: StepReport;
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
    opCount: opIndices.length,
    estimatedSavingNs: Math.max(0, estimatedSavingNs),
  };
}

/**
 * "1.20 ms (3.4% of the run)"; a figure summed over `deviceCount` > 1 GPUs reads "1.88 s across
 * 2 GPUs (97.1% of their time)", its share taken of the makespan times the GPU count.
 */
export function nsAndShare(durNs: number, makespanNs: number, deviceCount = 1): string {
  const spanNs = makespanNs * Math.max(1, deviceCount);
  const pct = spanNs > 0 ? ((100 * durNs) / spanNs).toFixed(1) : '';
  if (deviceCount > 1) {
    return `${formatDurationNs(durNs)} across ${deviceCount} GPUs${pct === '' ? '' : ` (${pct}% of their time)`}`;
  }
  return `${formatDurationNs(durNs)}${pct === '' ? '' : ` (${pct}% of the run)`}`;
}

/**
 * "366.70–366.74 ms": the two ends of a time range, with as many digits as it takes to tell them
 * apart (formatting each on its own can print "366.7 ms–366.7 ms").
 */
export function formatTimeRange(fromNs: number, toNs: number): string {
  const from = formatDurationNs(fromNs);
  const to = formatDurationNs(toNs);
  if (from !== to || fromNs === toNs) {
    return `${from}–${to}`;
  }
  const largest = Math.max(Math.abs(fromNs), Math.abs(toNs));
  const [unit, scale] =
    largest >= 1e9
      ? ['s', 1e9]
      : largest >= 1e6
        ? ['ms', 1e6]
        : largest >= 1e3
          ? ['µs', 1e3]
          : ['ns', 1];
  let digits = 0;
  while (digits < 9 && (fromNs / scale).toFixed(digits) === (toNs / scale).toFixed(digits)) {
    digits++;
  }
  return `${(fromNs / scale).toFixed(digits)}–${(toNs / scale).toFixed(digits)} ${unit}`;
}

/**
 * Device idle time charged to each host call, for rules that blame blocking calls: sums the
 * `causeNs` (the time the host spent in the call, never the whole gap) of the device gaps whose
 * cause op is `op`, keyed by op.
 */
export function deviceGapNsByCauseOp(input: RuleInput): IdNumberMap {
  const byOp = new IdNumberMap();
  const gaps = input.deviceGaps;
  for (let g = 0; g < gaps.count; g++) {
    const op = gaps.causeOp[g]!;
    if (op >= 0 && gaps.causeNs[g]! > 0) {
      byOp.add(op, gaps.causeNs[g]!);
    }
  }
  return byOp;
}

/** The largest per-device value: what several GPUs running side by side can save in wall time. */
export function maxOverDevices(perDevice: Float64Array): number {
  let most = 0;
  for (let k = 0; k < perDevice.length; k++) {
    most = Math.max(most, perDevice[k]!);
  }
  return most;
}

/** `ops` sorted by a weight, largest first (ties by index). */
export function byWeightDesc(ops: number[], weight: (op: number) => number): number[] {
  return ops.sort((a, b) => weight(b) - weight(a) || a - b);
}

/**
 * What removing the causes of some stream gaps would save, with the other streams left as they
 * are: each stream's last op moves earlier by the time charged to those causes on it (`causeNs`),
 * and the run ends when the last stream does. Optimistic (it assumes the device has room to run
 * the streams side by side), and never more than the charged time itself.
 */
export function projectedSavingNs(input: RuleInput, held: (g: number) => boolean): number {
  const { ctx, streamGaps } = input;
  const { walk } = ctx;
  const heldNs = new Float64Array(ctx.trace.tracks.length);
  let anyHeld = false;
  for (let g = 0; g < streamGaps.count; g++) {
    if (held(g)) {
      heldNs[streamGaps.track[g]!]! += streamGaps.causeNs[g]!;
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
