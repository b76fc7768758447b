import { IdNumberMap, formatDurationNs, trackLabels } from '@streamscope/trace';
import { isCopyEngine } from '../engines.ts';
import { causeIndex } from '../gap-causes.ts';
import { intersectionNs, measure, measureWithin, unionInPlace } from '../intervals.ts';
import { isPageable } from '../stats.ts';
import type { Finding } from '../types.ts';
import type { RuleInput } from './rule-input.ts';
import {
  byWeightDesc,
  finding,
  maxOverDevices,
  nsAndShare,
  projectedSavingNs,
} from './rule-input.ts';
import { KernelClass } from '../kernel-classes.ts';

/**
 * Streams held by the legacy default stream's implicit barrier: stream gaps attributed to it.
 * The saving is `projectedSavingNs` of those gaps (not their sum, which counts streams twice).
 */
export function defaultStreamSerializationRule(input: RuleInput): Finding | undefined {
  const { ctx, streamGaps } = input;
  const cause = causeIndex['legacy-default-stream'];
  let count = 0;
  for (let g = 0; g < streamGaps.count; g++) {
    if (streamGaps.cause[g] === cause) {
      count++;
    }
  }
  if (count === 0) {
    return undefined;
  }
  const starts = new Float64Array(count);
  const ends = new Float64Array(count);
  const heldNsByBarrier = new IdNumberMap();
  const held = new Set<number>();
  let k = 0;
  let sumNs = 0;
  for (let g = 0; g < streamGaps.count; g++) {
    if (streamGaps.cause[g] !== cause) {
      continue;
    }
    starts[k] = streamGaps.fromNs[g]!;
    ends[k] = streamGaps.toNs[g]!;
    const ns = ends[k]! - starts[k]!;
    sumNs += ns;
    k++;
    const barrier = streamGaps.causeOp[g]!;
    heldNsByBarrier.add(barrier, ns);
    held.add(streamGaps.track[g]!);
  }
  const heldUnionNs = measure(unionInPlace(starts, ends));
  const savingNs = projectedSavingNs(input, (g) => streamGaps.cause[g] === cause);
  if (savingNs < ctx.options.minSavingNs) {
    return undefined;
  }
  const barriers = byWeightDesc(heldNsByBarrier.keyArray(), (op) => heldNsByBarrier.get(op)!);
  const streams = [...held].map((t) => trackLabels(ctx.trace.tracks)[t]!).join(', ');
  return finding(
    'default-stream-serialization',
    'warning',
    'Legacy default stream serializes other streams',
    `Work on the legacy default stream (stream 0) waits for, and holds back, every blocking stream: ${count} gap${count === 1 ? '' : 's'} on ${streams} (${formatDurationNs(sumNs)} in all, ${formatDurationNs(heldUnionNs)} with at least one stream held) came from this implicit synchronization; without it the run could end up to ${nsAndShare(savingNs, input.metrics.makespanNs)} sooner. Issue that work on a stream of its own, create streams with cudaStreamNonBlocking, or compile with --default-stream per-thread.`,
    barriers,
    savingNs,
    ctx.options.maxFindingOps,
  );
}

/**
 * Copies that could overlap compute but don't. With perfect overlap the shorter of "copy time
 * not under a compute kernel" and "compute time not under a copy" disappears, so that is the
 * estimate, per GPU; GPUs run side by side, so the run gains at most the largest of them.
 */
export function missedOverlapRule(input: RuleInput): Finding | undefined {
  const { ctx, metrics } = input;
  const { cols, engineOf } = ctx;
  const perDevice = new Float64Array(ctx.devices.length);
  let copyOnlyNs = 0;
  let kernelOnlyNs = 0;
  ctx.devices.forEach((device, slot) => {
    const overlapped = intersectionNs(device.copies, device.compute);
    const copyOnly = measure(device.copies) - overlapped;
    const kernelOnly = measure(device.compute) - overlapped;
    copyOnlyNs += copyOnly;
    kernelOnlyNs += kernelOnly;
    perDevice[slot] = Math.min(copyOnly, kernelOnly);
  });
  const savingNs = maxOverDevices(perDevice);
  if (savingNs < ctx.options.minSavingNs || savingNs < 0.02 * metrics.makespanNs) {
    return undefined;
  }
  // The copies that ran (mostly) alone, and what they have in common.
  const exposed: number[] = [];
  const exposedNs = new IdNumberMap();
  const copyTracks = new Set<number>();
  const kernelTracks = new Set<number>();
  let pageable = 0;
  for (let i = 0; i < cols.count; i++) {
    const e = engineOf[i]!;
    if (ctx.kernelClassOf[i] === KernelClass.Compute) {
      kernelTracks.add(cols.track[i]!);
    }
    if (!isCopyEngine(e)) {
      continue;
    }
    copyTracks.add(cols.track[i]!);
    const slot = ctx.deviceSlotOfTrack[cols.track[i]!]!;
    const device = ctx.devices[slot]!;
    const startNs = Math.max(cols.startNs[i]!, ctx.window.fromNs);
    const endNs = Math.min(cols.endNs[i]!, ctx.window.toNs);
    const aloneNs = endNs - startNs - measureWithin(device.compute, startNs, endNs);
    if (aloneNs > (endNs - startNs) / 2) {
      exposed.push(i);
      exposedNs.set(i, aloneNs);
      if (isPageable(cols.memKinds[i]!)) {
        pageable++;
      }
    }
  }
  const oneStream =
    copyTracks.size === 1 && kernelTracks.size === 1 && [...copyTracks][0] === [...kernelTracks][0];
  const legacy = [...copyTracks].some((t) => {
    const info = ctx.trace.tracks[t];
    return info?.kind === 'gpu-stream' && info.streamType === 'legacy-default';
  });
  const why = oneStream
    ? 'All copies and kernels are on one stream, so each waits for the one before it. Split the data into chunks and give each chunk its own stream (copy in, compute, copy out).'
    : pageable > exposed.length / 2
      ? `${pageable} of them use pageable host memory, which cannot overlap; pin the host buffers.`
      : legacy
        ? 'Copies on the legacy default stream synchronize with the other streams; move them to non-blocking streams.'
        : 'Reorder the issue (or chunk the transfers) so each copy has independent compute to run beside.';
  return finding(
    'missed-overlap',
    'warning',
    'Copies that could overlap compute but do not',
    `${copyingAndCompute(copyOnlyNs, kernelOnlyNs, ctx.devices.length)}; copy/compute overlap is ${(100 * metrics.overlap.all).toFixed(1)}%. Overlapping them could save up to ${nsAndShare(savingNs, metrics.makespanNs)}. ${exposed.length} cop${exposed.length === 1 ? 'y' : 'ies'} ran mostly alone. ${why}`,
    byWeightDesc(exposed, (op) => exposedNs.get(op) ?? 0),
    savingNs,
    ctx.options.maxFindingOps,
  );
}

/**
 * "1.2 ms of copying ran with no compute kernel beside it and …", or for several GPUs "across 2
 * GPUs, 1.881 s of copying …": the figures sum the GPUs, so the sentence says so.
 */
function copyingAndCompute(copyOnlyNs: number, kernelOnlyNs: number, devices: number): string {
  const sentence = `${formatDurationNs(copyOnlyNs)} of copying ran with no compute kernel beside it and ${formatDurationNs(kernelOnlyNs)} of compute ran with no copy beside it`;
  return devices > 1 ? `Across ${devices} GPUs, ${sentence}` : sentence;
}
