import type { AnalysisContext } from './context.ts';
import { noEngine } from './engines.ts';
import type { IntervalList } from './intervals.ts';
import { unionInPlace } from './intervals.ts';
import { KernelClass } from './kernel-classes.ts';
import { pointToPointOps } from './pipeline-stages.ts';

/**
 * Per device slot, the communication kernels split in two: `collective` (all-reduces,
 * all-gathers… and any point-to-point kernel outside a pipeline) and `pointToPoint`, the sends
 * and receives of pipeline stages. A stage's receive spins until the previous stage has sent,
 * so its time is mostly the schedule's bubble and the wait for a slower stage: nothing that
 * overlapping with compute could hide, unlike a collective's.
 */
export interface CommunicationSplit {
  readonly collective: readonly IntervalList[];
  readonly pointToPoint: readonly IntervalList[];
}

const emptyList: IntervalList = {
  starts: new Float64Array(0),
  ends: new Float64Array(0),
  count: 0,
};

// Both are asked for by the metrics, the steps and two rules of one analysis: made once per context.
const pipelineOpsByContext = new WeakMap<AnalysisContext, Uint8Array | null>();
const splitByContext = new WeakMap<AnalysisContext, CommunicationSplit>();

/**
 * Per op: 1 for the point-to-point kernels (`pointToPointOps`) of ranks that are pipeline
 * stages, 0 for the rest; undefined unless GPU streams of at least two ranks run such kernels
 * inside the window (the condition `pipelineStages` reads the ranks as stages by).
 */
export function pipelinePointToPointOps(ctx: AnalysisContext): Uint8Array | undefined {
  const known = pipelineOpsByContext.get(ctx);
  if (known !== undefined) {
    return known ?? undefined;
  }
  const { trace, cols, engineOf, kernelClassOf } = ctx;
  let anyCommunication = false;
  for (let i = 0; i < cols.count && !anyCommunication; i++) {
    anyCommunication = kernelClassOf[i] === KernelClass.Communication;
  }
  const rankOfTrack = trace.tracks.map((t) => (t.kind === 'gpu-stream' ? (t.rank ?? -1) : -1));
  let ops: Uint8Array | null = null;
  if (anyCommunication && rankOfTrack.some((r) => r >= 0)) {
    const p2p = pointToPointOps(ctx);
    const ranks = new Set<number>();
    for (let i = 0; i < cols.count; i++) {
      const rank = rankOfTrack[cols.track[i]!]!;
      if (p2p[i] === 1 && rank >= 0 && engineOf[i] !== noEngine) {
        ranks.add(rank);
      } else {
        p2p[i] = 0;
      }
    }
    ops = ranks.size >= 2 ? p2p : null;
  }
  pipelineOpsByContext.set(ctx, ops);
  return ops ?? undefined;
}

/** The collective and the pipeline point-to-point communication of each device slot. */
export function communicationSplit(ctx: AnalysisContext): CommunicationSplit {
  const known = splitByContext.get(ctx);
  if (known !== undefined) {
    return known;
  }
  const p2p = pipelinePointToPointOps(ctx);
  const split =
    p2p === undefined
      ? {
          collective: ctx.devices.map((d) => d.communication),
          pointToPoint: ctx.devices.map(() => emptyList),
        }
      : splitBySlot(ctx, p2p);
  splitByContext.set(ctx, split);
  return split;
}

function splitBySlot(ctx: AnalysisContext, p2p: Uint8Array): CommunicationSplit {
  const { cols, kernelClassOf, deviceSlotOfTrack, window } = ctx;
  const slots = ctx.devices.length;
  // counts[slot * 2 + p2p[i]]: collectives first, then point to point.
  const counts = new Int32Array(slots * 2);
  for (let i = 0; i < cols.count; i++) {
    if (kernelClassOf[i] === KernelClass.Communication) {
      counts[deviceSlotOfTrack[cols.track[i]!]! * 2 + p2p[i]!]!++;
    }
  }
  const starts = Array.from(counts, (c) => new Float64Array(c));
  const ends = Array.from(counts, (c) => new Float64Array(c));
  const fill = new Int32Array(counts.length);
  for (let i = 0; i < cols.count; i++) {
    if (kernelClassOf[i] === KernelClass.Communication) {
      const at = deviceSlotOfTrack[cols.track[i]!]! * 2 + p2p[i]!;
      const k = fill[at]!++;
      starts[at]![k] = Math.max(cols.startNs[i]!, window.fromNs);
      ends[at]![k] = Math.min(cols.endNs[i]!, window.toNs);
    }
  }
  const unions = starts.map((s, at) => unionInPlace(s, ends[at]!));
  return {
    collective: ctx.devices.map((_, slot) => unions[slot * 2]!),
    pointToPoint: ctx.devices.map((_, slot) => unions[slot * 2 + 1]!),
  };
}
