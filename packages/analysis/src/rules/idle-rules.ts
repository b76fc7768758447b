import { OpKind, formatDurationNs } from '@streamscope/trace';
import { noEngine } from '../engines.ts';
import { causeIndex } from '../gap-causes.ts';
import { apiBaseName } from '../host-calls.ts';
import { explainGap } from '../gap-report.ts';
import { measureWithin } from '../intervals.ts';
import type { Finding } from '../types.ts';
import { gapCauses } from '../types.ts';
import type { RuleInput } from './rule-input.ts';
import { byWeightDesc, finding, nsAndShare, projectedSavingNs } from './rule-input.ts';

const deviceOrStreamSync =
  /^cu(da)?(DeviceSynchronize|StreamSynchronize|CtxSynchronize|ThreadSynchronize)$/;

/**
 * Nsight's `cuda_api_sync`, narrowed to what costs time: cudaDeviceSynchronize and
 * cudaStreamSynchronize calls that left the GPU idle until the host issued more work.
 */
export function deviceSyncRule(input: RuleInput): Finding | undefined {
  const { ctx, deviceGaps, streamGaps } = input;
  const { cols, trace } = ctx;
  const hostSync = causeIndex['host-sync'];
  const isSyncCall = (op: number): boolean => {
    const kind = cols.kind[op]!;
    return (
      kind === OpKind.DeviceSync ||
      kind === OpKind.StreamSync ||
      deviceOrStreamSync.test(apiBaseName(trace.strings.get(cols.nameId[op]!)))
    );
  };
  // Per call: device idle time it explains, and whether it held any stream.
  const perCall = new Map<number, number>();
  let deviceIdleNs = 0;
  for (let g = 0; g < deviceGaps.count; g++) {
    const op = deviceGaps.causeOp[g]!;
    if (deviceGaps.cause[g] === hostSync && op >= 0 && isSyncCall(op)) {
      const ns = deviceGaps.toNs[g]! - deviceGaps.fromNs[g]!;
      perCall.set(op, (perCall.get(op) ?? 0) + ns);
      deviceIdleNs += ns;
    }
  }
  const heldBySync = new Uint8Array(streamGaps.count);
  for (let g = 0; g < streamGaps.count; g++) {
    const op = streamGaps.causeOp[g]!;
    if (streamGaps.cause[g] === hostSync && op >= 0 && isSyncCall(op)) {
      heldBySync[g] = 1;
      perCall.set(op, perCall.get(op) ?? 0);
    }
  }
  const savingNs = Math.max(
    deviceIdleNs,
    projectedSavingNs(input, (g) => heldBySync[g] === 1),
  );
  if (perCall.size === 0 || savingNs < ctx.options.minSavingNs) {
    return undefined;
  }
  const calls = byWeightDesc([...perCall.keys()], (op) => perCall.get(op)!);
  const names = [...new Set(calls.map((op) => trace.strings.get(cols.nameId[op]!)))].join(', ');
  return finding(
    'device-sync',
    'warning',
    'Synchronization holds back GPU work',
    `${calls.length} synchronization call${calls.length === 1 ? '' : 's'} (${names}) held the host until the GPU caught up, so the next work was issued late: the GPU sat idle ${formatDurationNs(deviceIdleNs)} waiting for it, and without the waits the run could end up to ${nsAndShare(savingNs, input.metrics.makespanNs)} sooner. Synchronize only where the host needs a result; order GPU work with cudaStreamWaitEvent, and wait on one event with cudaEventSynchronize instead of the whole device.`,
    calls,
    savingNs,
    ctx.options.maxFindingOps,
  );
}

/** Nsight's `gpu_gaps`, at µs scale: device-wide idle gaps, with what caused each. */
export function gpuGapsRule(input: RuleInput): Finding | undefined {
  const { ctx, deviceGaps } = input;
  const threshold = ctx.options.gpuGapThresholdNs;
  const picked: number[] = [];
  let total = 0;
  const nsByCause = new Float64Array(gapCauses.length);
  for (let g = 0; g < deviceGaps.count; g++) {
    const durNs = deviceGaps.toNs[g]! - deviceGaps.fromNs[g]!;
    if (durNs >= threshold) {
      picked.push(g);
      total += durNs;
      nsByCause[deviceGaps.cause[g]!]! += durNs;
    }
  }
  if (picked.length === 0) {
    return undefined;
  }
  const dur = (g: number): number => deviceGaps.toNs[g]! - deviceGaps.fromNs[g]!;
  byWeightDesc(picked, dur);
  const causes = gapCauses
    .map((c, k) => [c, nsByCause[k]!] as const)
    .filter(([, ns]) => ns > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([c, ns]) => `${c} ${formatDurationNs(ns)}`)
    .join(', ');
  const top = picked[0]!;
  const worst = explainGap(
    ctx,
    -1,
    dur(top),
    gapCauses[deviceGaps.cause[top]!]!,
    deviceGaps.afterOp[top]!,
    deviceGaps.causeOp[top]!,
  );
  return finding(
    'gpu-gaps',
    'warning',
    'GPU idle gaps',
    `${picked.length} gap${picked.length === 1 ? '' : 's'} of at least ${formatDurationNs(threshold)} with no engine busy, ${nsAndShare(total, input.metrics.makespanNs)} in all; by cause: ${causes}. Largest: ${worst}`,
    picked.map((g) => deviceGaps.afterOp[g]!),
    total,
    ctx.options.maxFindingOps,
  );
}

/**
 * Nsight's `gpu_time_util`: the device span cut into chunks; chunks whose time utilization
 * (summed op time, so concurrent ops can pass 100%) is under the threshold are reported,
 * neighbours merged. The saving is the idle time inside them.
 */
export function lowUtilizationRule(input: RuleInput): Finding | undefined {
  const { ctx } = input;
  const { cols, engineOf, options } = ctx;
  const chunks = Math.max(1, options.utilizationChunks);
  const lowRanges: string[] = [];
  const ops: number[] = [];
  let idleNs = 0;
  let lowChunks = 0;
  ctx.devices.forEach((device, slot) => {
    if (device.all.count === 0) {
      return;
    }
    const fromNs = device.all.starts[0]!;
    const spanNs = device.all.ends[device.all.count - 1]! - fromNs;
    if (spanNs <= 0) {
      return;
    }
    const chunkNs = spanNs / chunks;
    const summed = new Float64Array(chunks);
    for (let i = 0; i < cols.count; i++) {
      if (engineOf[i] === noEngine || ctx.deviceSlotOfTrack[cols.track[i]!] !== slot) {
        continue;
      }
      const lo = Math.max(cols.startNs[i]!, fromNs);
      const hi = Math.min(cols.endNs[i]!, fromNs + spanNs);
      const first = Math.max(0, Math.floor((lo - fromNs) / chunkNs));
      const last = Math.min(chunks - 1, Math.floor((hi - fromNs) / chunkNs));
      for (let c = first; c <= last; c++) {
        const cLo = fromNs + c * chunkNs;
        summed[c]! += Math.max(0, Math.min(hi, cLo + chunkNs) - Math.max(lo, cLo));
      }
    }
    let runStart = -1;
    let runSum = 0;
    for (let c = 0; c <= chunks; c++) {
      const low = c < chunks && summed[c]! / chunkNs < options.utilizationThreshold;
      if (low) {
        lowChunks++;
        const cLo = fromNs + c * chunkNs;
        idleNs += chunkNs - measureWithin(device.all, cLo, cLo + chunkNs);
        if (runStart < 0) {
          runStart = c;
          runSum = 0;
        }
        runSum += summed[c]!;
      } else if (runStart >= 0) {
        const rLo = fromNs + runStart * chunkNs;
        const rHi = fromNs + c * chunkNs;
        const util = runSum / (rHi - rLo);
        lowRanges.push(
          `${formatDurationNs(rLo)}–${formatDurationNs(rHi)} at ${(100 * util).toFixed(0)}%`,
        );
        const first = firstWorkOpAfter(input, slot, rLo, rHi);
        if (first >= 0) {
          ops.push(first);
        }
        runStart = -1;
      }
    }
  });
  if (lowChunks === 0 || idleNs < options.minSavingNs) {
    return undefined;
  }
  return finding(
    'low-utilization',
    'info',
    'Low GPU utilization',
    `${lowChunks} of ${chunks * ctx.devices.length} time chunks kept the GPU under ${(100 * options.utilizationThreshold).toFixed(0)}% busy: ${lowRanges.slice(0, 5).join('; ')}${lowRanges.length > 5 ? '; …' : ''}. The GPU was idle ${nsAndShare(idleNs, input.metrics.makespanNs)} inside them; see the gap causes for why.`,
    ops,
    idleNs,
    options.maxFindingOps,
  );
}

/** The first GPU work op of device `slot` that starts in [fromNs, toNs), or -1. */
function firstWorkOpAfter(input: RuleInput, slot: number, fromNs: number, toNs: number): number {
  const { ctx } = input;
  let best = -1;
  for (const track of ctx.tracksOfDevice[slot]!) {
    const order = ctx.trace.ops.trackOpsInWindow(track, fromNs, toNs);
    for (let k = 0; k < order.length; k++) {
      const op = order[k]!;
      const startNs = ctx.cols.startNs[op]!;
      if (ctx.engineOf[op] !== noEngine && startNs >= fromNs && startNs < toNs) {
        if (best < 0 || startNs < ctx.cols.startNs[best]!) {
          best = op;
        }
        break;
      }
    }
  }
  return best;
}
