import { IdNumberMap, formatDurationNs } from '@streamscope/trace';
import { intersectionNs, measure, measureWithin } from '../intervals.ts';
import { KernelClass } from '../kernel-classes.ts';
import { shortKernelName } from '../kernel-names.ts';
import { communicationSplit, pipelinePointToPointOps } from '../pipeline-comm.ts';
import type { Finding } from '../types.ts';
import type { RuleInput } from './rule-input.ts';
import { byWeightDesc, finding, maxOverDevices, nsAndShare } from './rule-input.ts';

/**
 * Exposed communication (HTA's comm/comp overlap): NCCL/RCCL kernels that ran with no compute
 * kernel beside them, so the GPU waited for the network. Overlapping them with compute could
 * hide at most the shorter of "communication alone" and "compute alone", per GPU, and never
 * more than the exposed communication itself; the run gains at most the largest GPU's share.
 * The sends and receives of pipeline stages are left to `pipelineBubbleRule`: a stage's
 * receive waits for its peer stage to send, which no overlap hides.
 */
export function exposedCommunicationRule(input: RuleInput): Finding | undefined {
  const { ctx, metrics } = input;
  const { cols, kernelClassOf } = ctx;
  const { collective } = communicationSplit(ctx);
  const pipelineOps = pipelinePointToPointOps(ctx);
  const perDevice = new Float64Array(ctx.devices.length);
  let exposedNs = 0;
  let commNs = 0;
  let computeNs = 0;
  // Whether compute, not exposed communication, bounds the saving on every device.
  let computeBound = true;
  ctx.devices.forEach((device, slot) => {
    const comm = measure(collective[slot]!);
    const overlapped = intersectionNs(collective[slot]!, device.compute);
    const exposed = comm - overlapped;
    const computeAlone = measure(device.compute) - overlapped;
    commNs += comm;
    computeNs += measure(device.compute);
    exposedNs += exposed;
    if (exposed > 0 && computeAlone >= exposed) {
      computeBound = false;
    }
    perDevice[slot] = Math.min(exposed, computeAlone);
  });
  const savingNs = maxOverDevices(perDevice);
  if (
    exposedNs < ctx.options.minSavingNs ||
    exposedNs < 0.02 * metrics.makespanNs * Math.max(1, ctx.devices.length) ||
    savingNs < ctx.options.minSavingNs
  ) {
    return undefined;
  }
  // The collectives that ran (mostly) alone, and per kernel name (made once per name) how long.
  const alone: number[] = [];
  const aloneNs = new IdNumberMap();
  const nsByNameId = new Map<number, number>();
  for (let i = 0; i < cols.count; i++) {
    if (kernelClassOf[i] !== KernelClass.Communication || pipelineOps?.[i] === 1) {
      continue;
    }
    const device = ctx.devices[ctx.deviceSlotOfTrack[cols.track[i]!]!]!;
    const startNs = Math.max(cols.startNs[i]!, ctx.window.fromNs);
    const endNs = Math.min(cols.endNs[i]!, ctx.window.toNs);
    const ns = endNs - startNs - measureWithin(device.compute, startNs, endNs);
    if (ns > (endNs - startNs) / 2) {
      alone.push(i);
      aloneNs.set(i, ns);
      nsByNameId.set(cols.nameId[i]!, (nsByNameId.get(cols.nameId[i]!) ?? 0) + ns);
    }
  }
  const names = new Map<string, number>();
  for (const [nameId, ns] of nsByNameId) {
    const name = shortKernelName(ctx.trace.strings.get(nameId));
    names.set(name, (names.get(name) ?? 0) + ns);
  }
  const top = [...names.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([name, ns]) => `${name} ${formatDurationNs(ns)}`)
    .join(', ');
  const devices = ctx.devices.length;
  // With little compute, "could save 2 µs" beside "86 ms exposed" reads as a contradiction:
  // say that the compute, not the scheduling, is what limits the saving.
  const saving = computeBound
    ? `Only ${formatDurationNs(computeNs)} of compute ran in the whole trace to overlap it with, so overlapping cannot save more than ${nsAndShare(savingNs, metrics.makespanNs)}: the run is bound by the communication itself, not by how it is scheduled (fewer or larger collectives, or less data per step, would shorten it).`
    : `Overlapping it with compute could save up to ${nsAndShare(savingNs, metrics.makespanNs)}. Launch collectives as soon as their inputs are ready on a stream of their own (DDP buckets gradients during backward: check bucket_cap_mb and that no_sync or find_unused_parameters does not hold them back; FSDP: enable backward_prefetch and forward_prefetch), and keep the host from synchronizing on them.`;
  const overlapPct = commNs > 0 ? ((100 * (commNs - exposedNs)) / commNs).toFixed(1) : '0.0';
  return finding(
    'exposed-communication',
    'warning',
    'Communication not overlapped with compute',
    `${nsAndShare(exposedNs, metrics.makespanNs, devices)} of communication ran with no compute kernel beside it (communication/compute overlap ${overlapPct}%)${top === '' ? '' : `; mostly ${top}`}. ${saving}`,
    byWeightDesc(alone, (op) => aloneNs.get(op) ?? 0),
    savingNs,
    ctx.options.maxFindingOps,
  );
}
