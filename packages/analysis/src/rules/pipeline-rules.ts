import { formatDurationNs } from '@streamscope/trace';
import type { AnalysisContext } from '../context.ts';
import { noEngine } from '../engines.ts';
import { pipelinePointToPointOps } from '../pipeline-comm.ts';
import { stageRanksText } from '../pipeline-stages.ts';
import { rankAnalysis } from '../ranks.ts';
import type { Finding, PipelineStage, StepMetrics } from '../types.ts';
import type { RuleInput } from './rule-input.ts';
import { byWeightDesc, finding } from './rule-input.ts';

// Host ranges around a receive's launch: PyTorch's "nccl:recv 1<-0", NCCL's NVTX "ncclRecv".
const receiveRange = /^(?:nccl:recv\b|ncclRecv$)/;
// The bubble's share of a stage's time from which the rule speaks, and from which it warns:
// 2 stages with 16 microbatches lose 1/17 (5.9%), with 4 a fifth.
const minBubbleShare = 0.05;
const warnBubbleShare = 0.15;

/**
 * The pipeline's bubble: where the ranks are pipeline stages (`RankAnalysis.pipeline`), the time
 * they wait in point-to-point send and receive kernels (no compute beside them), and the share
 * of the stage that waits least: every stage loses about that to filling and draining the
 * pipeline, whatever the balance (the bottleneck stage is the `rank-straggler` rule's). Where
 * receives can be counted per profiler step, the share a GPipe or 1F1B schedule implies for that
 * many microbatches. The remedy is the schedule's: more microbatches per step (twice as many
 * halve the bubble: the estimated saving) or an interleaved schedule; overlapping the receives
 * with compute is none.
 */
export function pipelineBubbleRule(input: RuleInput): Finding | undefined {
  const { ctx, steps } = input;
  const p2p = pipelinePointToPointOps(ctx);
  const pipeline = p2p === undefined ? undefined : rankAnalysis(ctx)?.pipeline;
  if (p2p === undefined || pipeline === undefined) {
    return undefined;
  }
  const { stages } = pipeline;
  // A stage's waiting (in a send or receive, computing nothing) as a share of the time it
  // computed or waited: the idle time of a window that takes in the job's set-up is nobody's
  // bubble, and a transfer beside compute (an overlapped schedule's) is no wait.
  const shareOf = (s: PipelineStage): number => {
    const workNs = s.computeNs + s.pointToPointAloneNs;
    return workNs > 0 ? s.pointToPointAloneNs / workNs : 0;
  };
  const least = stages.reduce((a, b) => (shareOf(b) < shareOf(a) ? b : a));
  const bubbleShare = shareOf(least);
  const savingNs = least.pointToPointAloneNs / 2;
  if (bubbleShare < minBubbleShare || savingNs < ctx.options.minSavingNs) {
    return undefined;
  }
  const p = stages.length;
  const windowNs = pipeline.toNs - pipeline.fromNs;
  const waitingNs = stages.reduce((sum, s) => sum + s.pointToPointAloneNs, 0);
  const pct = (share: number): string => `${(100 * share).toFixed(1)}%`;
  const ops = pipelineOpsInWindow(ctx, p2p);
  const dur = (op: number): number => ctx.cols.endNs[op]! - ctx.cols.startNs[op]!;
  let shortestNs = Infinity;
  for (const op of ops) {
    shortestNs = Math.min(shortestNs, dur(op));
  }
  // The shortest kernel is about what one message costs when its peer is ready (a pipeline's
  // messages are alike): when that many of them fill less than half the waiting, the waiting is
  // mostly for the peer.
  const peer = p === 2 ? 'the other stage' : 'other stages';
  const transfers =
    ops.length > 0 && shortestNs * ops.length <= waitingNs / 2
      ? `; the shortest of the ${ops.length} took ${formatDurationNs(shortestNs)}, so that is mostly waiting for ${peer}, not moving data`
      : '';
  const perStep = receivesPerStep(ctx, p2p, steps.steps, stages);
  let schedule = '';
  if (perStep !== undefined) {
    const m = perStep.count;
    const who = perStep.same ? 'Each stage receives' : `Rank ${perStep.rank} receives`;
    schedule =
      ` ${who} ${m} times a step: if those are ${m} microbatches of a GPipe or 1F1B schedule ` +
      `over ${p} stages, the bubble is (p − 1)/(m + p − 1) = ${p - 1}/${m + p - 1} = ` +
      `${pct((p - 1) / (m + p - 1))} of a step with equal stages.`;
  }
  const message =
    `${stageRanksText(stages)} pass activations and gradients point to point (NCCL send/recv): ` +
    `they are pipeline stages. Over the ${formatDurationNs(windowNs)} all of them worked they ` +
    `waited ${formatDurationNs(waitingNs)} (${pct(waitingNs / (windowNs * p))} of their time) ` +
    `in send and receive kernels with no compute beside them${transfers}. Rank ${least.rank}, ` +
    `which waits least, waited ${formatDurationNs(least.pointToPointAloneNs)}, ` +
    `${pct(bubbleShare)} of its time computing or waiting: every stage loses about that share ` +
    `to the schedule's fill and drain (the bubble).${schedule} More microbatches per step ` +
    `shrink the bubble (twice as many halve it: about ${formatDurationNs(savingNs)} here, if ` +
    `the smaller microbatches run as efficiently), and so does an interleaved schedule (several ` +
    `model chunks per rank, as Megatron's virtual pipeline stages); overlapping the receives ` +
    `with compute does not, since a stage has nothing to compute until its input arrives.`;
  return finding(
    'pipeline-bubble',
    bubbleShare >= warnBubbleShare ? 'warning' : 'info',
    "Pipeline stages wait out the schedule's bubble",
    message,
    byWeightDesc(ops, dur),
    savingNs,
    ctx.options.maxFindingOps,
  );
}

/** The pipeline's send and receive kernels that touch the window. */
function pipelineOpsInWindow(ctx: AnalysisContext, p2p: Uint8Array): number[] {
  const ops: number[] = [];
  for (let i = 0; i < ctx.cols.count; i++) {
    if (p2p[i] === 1 && ctx.engineOf[i] !== noEngine) {
      ops.push(i);
    }
  }
  return ops;
}

/**
 * The fewest receives a stage launches in a profiler step of its own, when each stage launches
 * the same number in every one of its steps: in GPipe and 1F1B the first stage receives a
 * gradient and the last an activation per microbatch, a middle stage both. Receives are told by
 * the host range around their launch (`receiveRange`). Undefined when a stage has no step, no
 * receive so marked, or steps that disagree (one the profiler caught in part counts fewer).
 */
function receivesPerStep(
  ctx: AnalysisContext,
  p2p: Uint8Array,
  steps: readonly StepMetrics[],
  stages: readonly PipelineStage[],
): { count: number; rank: number; same: boolean } | undefined {
  const { trace, cols, apiOf, hostRanges } = ctx;
  const rangeNames = trace.ranges.columns().nameId;
  const stepsOfRank = new Map<number, StepMetrics[]>();
  for (const step of steps) {
    if (step.rank !== undefined) {
      const own = stepsOfRank.get(step.rank) ?? [];
      own.push(step);
      stepsOfRank.set(step.rank, own);
    }
  }
  // Receives launched in each step, by the step's launch window on its rank's host.
  const counts = new Map<StepMetrics, number>();
  for (let i = 0; i < cols.count; i++) {
    const api = apiOf[i]!;
    const rank = trace.tracks[cols.track[i]!]!.rank;
    if (p2p[i] !== 1 || api < 0 || rank === undefined) {
      continue;
    }
    const launchNs = cols.startNs[api]!;
    const step = stepsOfRank.get(rank)?.find((s) => s.startNs <= launchNs && launchNs <= s.endNs);
    if (step === undefined) {
      continue;
    }
    let receive = false;
    let r = hostRanges.innermostAt(cols.track[api]!, launchNs);
    for (; r >= 0 && !receive; r = hostRanges.enclosing(r)) {
      receive = receiveRange.test(trace.strings.get(rangeNames[r]!));
    }
    if (receive) {
      counts.set(step, (counts.get(step) ?? 0) + 1);
    }
  }
  const perStage: { rank: number; count: number }[] = [];
  for (const stage of stages) {
    const own = stepsOfRank.get(stage.rank) ?? [];
    const values = new Set(own.map((s) => counts.get(s) ?? 0));
    const [count] = [...values];
    if (values.size !== 1 || count === undefined || count === 0) {
      return undefined;
    }
    perStage.push({ rank: stage.rank, count });
  }
  const fewest = perStage.reduce((a, b) => (b.count < a.count ? b : a));
  return { ...fewest, same: perStage.every((s) => s.count === fewest.count) };
}
