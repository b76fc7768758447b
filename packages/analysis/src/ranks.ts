import { formatDurationNs } from '@streamscope/trace';
import type { AnalysisContext } from './context.ts';
import { Engine, noEngine } from './engines.ts';
import { measure, unionInPlace } from './intervals.ts';
import { KernelClass, kernelClassCount } from './kernel-classes.ts';
import { bottleneckStage, bottleneckStageMessage, pipelineStages } from './pipeline-stages.ts';
import type { RuleInput } from './rules/rule-input.ts';
import { finding } from './rules/rule-input.ts';
import type { Finding, RankAnalysis, RankBreakdown, RankStraggler } from './types.ts';

/**
 * Indices into a rank's per-part counts, the kernel classes' own values (`KernelClass`); copies
 * and memsets count as memory; `Count` holds all GPU ops.
 */
const Part = { ...KernelClass, Count: kernelClassCount } as const;
const noPart = 255;

/**
 * Per rank of a merged trace (tracks carry `rank`), over the rank's own GPU span inside the
 * window (its first GPU op start to its last end): compute, communication and memory
 * by the kernel classes (copies and memsets are memory),
 * busy = |∪ all GPU work|, idle = span − busy (ns). Undefined for a trace of fewer than 2 ranks.
 */
export function rankAnalysis(ctx: AnalysisContext): RankAnalysis | undefined {
  const { trace, cols, engineOf, kernelClassOf, window } = ctx;
  const rankOfTrack = trace.tracks.map((t) => (t.kind === 'gpu-stream' ? (t.rank ?? -1) : -1));
  const ranks = [...new Set(rankOfTrack.filter((r) => r >= 0))].sort((a, b) => a - b);
  if (ranks.length < 2) {
    return undefined;
  }
  const slotOfRank = new Map(ranks.map((rank, slot) => [rank, slot]));
  const counts = ranks.map(() => new Int32Array(Part.Count + 1));
  const partOf = new Uint8Array(cols.count).fill(noPart);
  for (let i = 0; i < cols.count; i++) {
    const engine = engineOf[i]!;
    const rank = rankOfTrack[cols.track[i]!]!;
    if (engine === noEngine || rank < 0) {
      continue;
    }
    // The analysis's kernel classes (by name and by a collective's host range) for SM work.
    const part: number = engine === Engine.Compute ? kernelClassOf[i]! : Part.Memory;
    partOf[i] = part;
    const c = counts[slotOfRank.get(rank)!]!;
    c[part]!++;
    c[Part.Count]!++;
  }
  const breakdowns = ranks.map((rank, slot): RankBreakdown => {
    const c = counts[slot]!;
    const starts = [0, 1, 2].map((p) => new Float64Array(c[p]!));
    const ends = [0, 1, 2].map((p) => new Float64Array(c[p]!));
    const all = {
      starts: new Float64Array(c[Part.Count]!),
      ends: new Float64Array(c[Part.Count]!),
    };
    const at = [0, 0, 0];
    let n = 0;
    for (let i = 0; i < cols.count; i++) {
      const part = partOf[i]!;
      if (part === noPart || rankOfTrack[cols.track[i]!] !== rank) {
        continue;
      }
      const s = Math.max(cols.startNs[i]!, window.fromNs);
      const e = Math.min(cols.endNs[i]!, window.toNs);
      starts[part]![at[part]!] = s;
      ends[part]![at[part]!++] = e;
      all.starts[n] = s;
      all.ends[n++] = e;
    }
    const busy = unionInPlace(all.starts, all.ends);
    const spanNs = busy.count === 0 ? 0 : busy.ends[busy.count - 1]! - busy.starts[0]!;
    const busyNs = measure(busy);
    const pids = [...new Set(trace.tracks.filter((t) => t.rank === rank).map((t) => t.pid))].sort(
      (a, b) => a - b,
    );
    return {
      rank,
      pids,
      gpuOpCount: c[Part.Count]!,
      fromNs: busy.count === 0 ? 0 : busy.starts[0]!,
      spanNs,
      busyNs,
      computeNs: measure(unionInPlace(starts[Part.Compute]!, ends[Part.Compute]!)),
      communicationNs: measure(
        unionInPlace(starts[Part.Communication]!, ends[Part.Communication]!),
      ),
      memoryNs: measure(unionInPlace(starts[Part.Memory]!, ends[Part.Memory]!)),
      idleNs: spanNs - busyNs,
    };
  });
  // Pipeline stages wait in their receives for the schedule's bubble: only compute tells them apart.
  const pipeline = pipelineStages(ctx, breakdowns);
  const straggler = pipeline === undefined ? findStraggler(breakdowns) : bottleneckStage(pipeline);
  return {
    ranks: breakdowns,
    ...(pipeline === undefined ? {} : { pipeline }),
    ...(straggler === undefined ? {} : { straggler }),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The rank the others wait for: the one whose compute exceeds the median most, or whose waiting
 * falls short of the median most, whichever is more, in ns (compute wins a tie). Where the ranks
 * communicate on the GPU, the others wait inside their collectives (an NCCL kernel spins until
 * every rank has joined), so their waiting is communication time and the straggler's is the
 * least; with no collective on the GPU they wait idle, and the straggler idles least. (A rank
 * whose host is late idles the most while the others spin: least idle would name a rank that
 * waits.) Undefined when no rank is above the median on either.
 */
function findStraggler(ranks: readonly RankBreakdown[]): RankStraggler | undefined {
  const computeMedianNs = median(ranks.map((r) => r.computeNs));
  const waitMetric = ranks.some((r) => r.communicationNs > 0) ? 'communication' : 'idle';
  const waitOf = (r: RankBreakdown): number => metricNs(r, waitMetric);
  const waitMedianNs = median(ranks.map(waitOf));
  let best: RankStraggler | undefined;
  for (const r of ranks) {
    const options: RankStraggler[] = [
      {
        rank: r.rank,
        metric: 'compute',
        valueNs: r.computeNs,
        medianNs: computeMedianNs,
        diffNs: r.computeNs - computeMedianNs,
        minNs: Math.min(...ranks.map((o) => o.computeNs)),
      },
      {
        rank: r.rank,
        metric: waitMetric,
        valueNs: waitOf(r),
        medianNs: waitMedianNs,
        diffNs: waitMedianNs - waitOf(r),
        minNs: Math.min(...ranks.map(waitOf)),
      },
    ];
    for (const option of options) {
      if (option.diffNs > 0 && (best === undefined || option.diffNs > best.diffNs)) {
        best = option;
      }
    }
  }
  return best;
}

// Ranks of a real job differ by a few percent run to run (the recorded NCCL pair: 0.5%): the
// rule speaks from 5% of the median on.
const minStragglerShare = 0.05;

/** The `rank-straggler` rule: the straggler of a multi-rank trace, when it costs the others time. */
export function rankStragglerRule(input: RuleInput): Finding | undefined {
  const { ctx } = input;
  const ranks = rankAnalysis(ctx);
  const s = ranks?.straggler;
  if (
    ranks === undefined ||
    s === undefined ||
    s.diffNs < ctx.options.minSavingNs ||
    s.diffNs < minStragglerShare * s.medianNs
  ) {
    return undefined;
  }
  if (ranks.pipeline !== undefined) {
    return finding(
      'rank-straggler',
      s.diffNs / Math.max(1, s.medianNs) >= 0.1 ? 'warning' : 'info',
      `Rank ${s.rank} is the pipeline's bottleneck stage`,
      bottleneckStageMessage(ranks.pipeline, s),
      longestOpsOfRank(ctx, s.rank, ctx.options.maxFindingOps),
      s.diffNs,
      ctx.options.maxFindingOps,
    );
  }
  const share = s.medianNs > 0 ? ` (${((100 * s.diffNs) / s.medianNs).toFixed(1)}%)` : '';
  // Of two ranks the median is their mean, a value neither has: the other rank's is said too.
  const other = ranks.ranks.length === 2 ? ranks.ranks.find((r) => r.rank !== s.rank) : undefined;
  const median =
    other === undefined
      ? `the median rank (${formatDurationNs(s.medianNs)})`
      : `the two ranks' median (${formatDurationNs(s.medianNs)}; rank ${other.rank}: ${formatDurationNs(metricNs(other, s.metric))})`;
  const what =
    s.metric === 'compute'
      ? `computes ${formatDurationNs(s.valueNs)} on the GPU, ${formatDurationNs(s.diffNs)}${share} more than ${median}` +
        (s.minNs > 0
          ? `, ${(s.valueNs / s.minNs).toFixed(2)}× that of the rank that computes least`
          : '')
      : s.metric === 'communication'
        ? `spends ${formatDurationNs(s.valueNs)} in collectives on the GPU, ${formatDurationNs(s.diffNs)}${share} less than ${median}: the others wait for it inside theirs (an NCCL kernel spins until every rank has joined)`
        : `idles ${formatDurationNs(s.valueNs)} on the GPU, ${formatDurationNs(s.diffNs)}${share} less than ${median}, while the others wait`;
  const message =
    `Rank ${s.rank} ${what}. In a synchronous job every collective waits for the slowest rank, ` +
    `so the others lose about that much each time: balance the work (data shards, sequence ` +
    `lengths, pipeline stages) or look at what else runs on rank ${s.rank}'s GPU and host.`;
  return finding(
    'rank-straggler',
    s.diffNs / Math.max(1, s.medianNs) >= 0.1 ? 'warning' : 'info',
    `Rank ${s.rank} is the straggler`,
    message,
    longestOpsOfRank(ctx, s.rank, ctx.options.maxFindingOps),
    s.diffNs,
    ctx.options.maxFindingOps,
  );
}

function longestOpsOfRank(ctx: AnalysisContext, rank: number, max: number): number[] {
  const { cols, engineOf, trace } = ctx;
  const ops: number[] = [];
  for (let i = 0; i < cols.count; i++) {
    if (engineOf[i] !== noEngine && trace.tracks[cols.track[i]!]!.rank === rank) {
      ops.push(i);
    }
  }
  const dur = (i: number): number => cols.endNs[i]! - cols.startNs[i]!;
  return ops.sort((a, b) => dur(b) - dur(a) || a - b).slice(0, max);
}

/** A rank's figure of a straggler metric, ns. */
function metricNs(r: RankBreakdown, metric: RankStraggler['metric']): number {
  return metric === 'compute'
    ? r.computeNs
    : metric === 'communication'
      ? r.communicationNs
      : r.idleNs;
}
