import { formatDurationNs } from '@streamscope/trace';
import type { AnalysisContext } from './context.ts';
import { noEngine } from './engines.ts';
import type { IntervalList } from './intervals.ts';
import { measureWithin, subtractIntervals, unionInPlace } from './intervals.ts';
import { KernelClass } from './kernel-classes.ts';
import type { PipelineStage, PipelineStages, RankBreakdown, RankStraggler } from './types.ts';

// Host ranges around a point-to-point launch: PyTorch's "nccl:send 0->1" / "nccl:recv 1<-0"
// (kineto) and NCCL's own NVTX "ncclSend" / "ncclRecv".
const p2pRange = /^(?:nccl:(?:send|recv)\b|ncclSend$|ncclRecv$)/;
// An all-to-all runs NCCL's SendRecv kernel too ("nccl:all_to_all", NVTX "ncclAlltoAll"), but
// every rank waits for every other in it, as in any collective.
const allToAllRange = /all_?to_?all/i;
// NCCL's point-to-point kernel: ncclDevKernel_SendRecv, ncclKernel_SendRecv_…, mangled names.
const sendRecvName = /SendRecv/;

/** Indices into a stage's interval lists; `Other` ops (copies, collectives) count in `All` only. */
const Part = { Compute: 0, P2p: 1, All: 2, Other: 3 } as const;

/**
 * Per op: 1 for the NCCL/RCCL kernels that are point-to-point sends and receives, 0 for the
 * rest. A communication kernel is point-to-point when its launch ran inside a send or receive
 * host range, or when its name is SendRecv's and no all-to-all range holds its launch.
 */
export function pointToPointOps(ctx: AnalysisContext): Uint8Array {
  const { trace, cols, kernelClassOf, apiOf, hostRanges } = ctx;
  const rangeNames = trace.ranges.columns().nameId;
  const out = new Uint8Array(cols.count);
  for (let i = 0; i < cols.count; i++) {
    if (kernelClassOf[i] !== KernelClass.Communication) {
      continue;
    }
    let verdict = sendRecvName.test(trace.strings.get(cols.nameId[i]!));
    const api = apiOf[i]!;
    const innermost = api >= 0 ? hostRanges.innermostAt(cols.track[api]!, cols.startNs[api]!) : -1;
    for (let r = innermost; r >= 0; r = hostRanges.enclosing(r)) {
      const name = trace.strings.get(rangeNames[r]!);
      if (p2pRange.test(name)) {
        verdict = true;
        break;
      }
      if (allToAllRange.test(name)) {
        verdict = false;
        break;
      }
    }
    out[i] = verdict ? 1 : 0;
  }
  return out;
}

/**
 * The ranks as pipeline stages, when at least two of them send or receive point to point (the
 * activations and gradients of pipeline parallelism); undefined otherwise. Each stage's figures
 * are taken over the window every rank's GPU worked in (the latest first op to the earliest
 * last end): each rank's profiler records its own steps, and a rank whose window reaches into
 * a step the others did not record would seem to compute more. The window costs the first
 * stage's last backward at most, one microbatch's, where the last stage ends first.
 */
export function pipelineStages(
  ctx: AnalysisContext,
  breakdowns: readonly RankBreakdown[],
): PipelineStages | undefined {
  const { trace, cols, engineOf, kernelClassOf } = ctx;
  const p2p = pointToPointOps(ctx);
  const slotOfRank = new Map(breakdowns.map((b, slot) => [b.rank, slot]));
  const slotOfTrack = Int32Array.from(trace.tracks, (t) =>
    t.kind === 'gpu-stream' && t.rank !== undefined ? (slotOfRank.get(t.rank) ?? -1) : -1,
  );
  // Per slot: its count of compute, point-to-point and all GPU ops (Part order).
  const counts = breakdowns.map(() => new Int32Array(3));
  const partOf = new Int8Array(cols.count).fill(-1);
  for (let i = 0; i < cols.count; i++) {
    const slot = slotOfTrack[cols.track[i]!]!;
    if (slot < 0 || engineOf[i] === noEngine) {
      continue;
    }
    const part =
      kernelClassOf[i] === KernelClass.Compute
        ? Part.Compute
        : p2p[i] === 1
          ? Part.P2p
          : Part.Other;
    partOf[i] = part;
    const c = counts[slot]!;
    c[Part.All]!++;
    if (part !== Part.Other) {
      c[part]!++;
    }
  }
  if (counts.filter((c) => c[Part.P2p]! > 0).length < 2) {
    return undefined;
  }
  const fromNs = Math.max(...breakdowns.map((b) => b.fromNs));
  const toNs = Math.max(fromNs, Math.min(...breakdowns.map((b) => b.fromNs + b.spanNs)));
  const stages = breakdowns.map((b, slot): PipelineStage => {
    const c = counts[slot]!;
    const starts = [0, 1, 2].map((part) => new Float64Array(c[part]!));
    const ends = [0, 1, 2].map((part) => new Float64Array(c[part]!));
    const at = [0, 0, 0];
    for (let i = 0; i < cols.count; i++) {
      const part = partOf[i]!;
      if (part < 0 || slotOfTrack[cols.track[i]!] !== slot) {
        continue;
      }
      const s = Math.max(cols.startNs[i]!, ctx.window.fromNs);
      const e = Math.min(cols.endNs[i]!, ctx.window.toNs);
      if (part !== Part.Other) {
        starts[part]![at[part]!] = s;
        ends[part]![at[part]!++] = e;
      }
      starts[Part.All]![at[Part.All]!] = s;
      ends[Part.All]![at[Part.All]!++] = e;
    }
    const union = (part: number): IntervalList => unionInPlace(starts[part]!, ends[part]!);
    const compute = union(Part.Compute);
    const pointToPoint = union(Part.P2p);
    return {
      rank: b.rank,
      computeNs: measureWithin(compute, fromNs, toNs),
      pointToPointNs: measureWithin(pointToPoint, fromNs, toNs),
      pointToPointAloneNs: measureWithin(subtractIntervals(pointToPoint, compute), fromNs, toNs),
      idleNs: toNs - fromNs - measureWithin(union(Part.All), fromNs, toNs),
    };
  });
  return { fromNs, toNs, stages };
}

/**
 * The stage that sets the pipeline's pace: the one that computes most over the common window,
 * diffNs above the median stage. Every microbatch passes through it, so each other stage waits
 * its shortfall on top of the bubble (their time outside compute, less the bottleneck's).
 * Undefined when no stage computes more than the median.
 */
export function bottleneckStage(pipeline: PipelineStages): RankStraggler | undefined {
  const computes = pipeline.stages.map((s) => s.computeNs);
  const sorted = [...computes].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const medianNs = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  let top = pipeline.stages[0]!;
  for (const s of pipeline.stages) {
    if (s.computeNs > top.computeNs) {
      top = s;
    }
  }
  const diffNs = top.computeNs - medianNs;
  if (!(diffNs > 0)) {
    return undefined;
  }
  return {
    rank: top.rank,
    metric: 'compute',
    valueNs: top.computeNs,
    medianNs,
    diffNs,
    minNs: sorted[0]!,
  };
}

/**
 * What the bottleneck stage `s` computes against the others over the common window, how much
 * longer the others wait for it than it waits itself (its own waiting is the bubble of filling
 * and draining the pipeline, which no balance removes), and what to change.
 */
export function bottleneckStageMessage(pipeline: PipelineStages, s: RankStraggler): string {
  const { stages } = pipeline;
  const windowNs = pipeline.toNs - pipeline.fromNs;
  const waitOf = (stage: PipelineStage): number => windowNs - stage.computeNs;
  const top = stages.find((stage) => stage.rank === s.rank)!;
  const others = stages.filter((stage) => stage !== top);
  const least = others.reduce((a, b) => (b.computeNs < a.computeNs ? b : a));
  const pct = (ns: number, of: number): string => (of > 0 ? ((100 * ns) / of).toFixed(1) : '0.0');
  const names = stageRanksText(stages);
  // Of two stages the median is their mean, a value neither has: the other's is said too.
  const median =
    others.length === 1
      ? `the two stages' median (${formatDurationNs(s.medianNs)}; rank ${least.rank}: ${formatDurationNs(least.computeNs)})`
      : `the median stage (${formatDurationNs(s.medianNs)})`;
  const listed = others
    .slice(0, 3)
    .map((stage) => `rank ${stage.rank}: ${formatDurationNs(waitOf(stage))}`);
  const more = others.length > 3 ? ` and ${others.length - 3} more` : '';
  const bubbleNs = waitOf(top);
  return (
    `${names} pass activations and gradients point to point (NCCL send/recv): they are ` +
    `pipeline stages, and a stage's waiting in its receives is mostly the schedule's bubble, ` +
    `not a slower peer. Over the ${formatDurationNs(windowNs)} all of them worked, rank ${s.rank} ` +
    `computes ${formatDurationNs(s.valueNs)} on the GPU, ${formatDurationNs(s.diffNs)} ` +
    `(${pct(s.diffNs, s.medianNs)}%) more than ${median}, ` +
    `${s.minNs > 0 ? `${(s.valueNs / s.minNs).toFixed(2)}×` : 'more than'} the stage that ` +
    `computes least. Every microbatch passes through it, so the others wait for it beyond the ` +
    `bubble: their time out of compute in the window (receiving or idle) is ${listed.join(', ')}` +
    `${more}, against rank ${s.rank}'s ${formatDurationNs(bubbleNs)} (${pct(bubbleNs, windowNs)}%), the ` +
    `pipeline's fill and drain. Balance the stages: move layers from rank ${s.rank} to ` +
    `rank ${least.rank}, or split its heaviest layers; more microbatches per step shrink the ` +
    `bubble, not this.`
  );
}

/** "Ranks 0 and 1", "Ranks 0, 1, 2", or "The 8 ranks" past four: a sentence's subject. */
export function stageRanksText(stages: readonly PipelineStage[]): string {
  return stages.length > 4
    ? `The ${stages.length} ranks`
    : `Ranks ${stages.map((stage) => stage.rank).join(stages.length === 2 ? ' and ' : ', ')}`;
}
