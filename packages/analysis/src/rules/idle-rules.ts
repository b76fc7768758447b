import { IdNumberMap, OpKind, formatDurationNs } from '@streamscope/trace';
import { noEngine } from '../engines.ts';
import { causeIndex } from '../gap-causes.ts';
import { apiBaseName } from '../host-calls.ts';
import { explainGap } from '../gap-report.ts';
import { measureWithin } from '../intervals.ts';
import type { Finding } from '../types.ts';
import { gapCauses } from '../types.ts';
import type { RuleInput } from './rule-input.ts';
import {
  byWeightDesc,
  finding,
  formatTimeRange,
  maxOverDevices,
  nsAndShare,
  projectedSavingNs,
} from './rule-input.ts';

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
  // Per call: device idle time charged to it (its time before the next op), and per device the
  // idle time after the calls and what of it they are charged.
  const perCall = new IdNumberMap();
  const idleBySlot = new Float64Array(ctx.devices.length);
  const chargedBySlot = new Float64Array(ctx.devices.length);
  for (let g = 0; g < deviceGaps.count; g++) {
    const op = deviceGaps.causeOp[g]!;
    if (deviceGaps.cause[g] === hostSync && op >= 0 && isSyncCall(op)) {
      const charged = deviceGaps.causeNs[g]!;
      perCall.add(op, charged);
      idleBySlot[deviceGaps.deviceSlot[g]!]! += deviceGaps.toNs[g]! - deviceGaps.fromNs[g]!;
      chargedBySlot[deviceGaps.deviceSlot[g]!]! += charged;
    }
  }
  const heldBySync = new Uint8Array(streamGaps.count);
  for (let g = 0; g < streamGaps.count; g++) {
    const op = streamGaps.causeOp[g]!;
    if (streamGaps.cause[g] === hostSync && op >= 0 && isSyncCall(op)) {
      heldBySync[g] = 1;
      perCall.add(op, 0);
    }
  }
  // Never more than the calls lasted: without them the host is that much earlier, at most.
  let callNs = 0;
  for (const op of perCall.keysInOrder()) {
    callNs += cols.endNs[op]! - cols.startNs[op]!;
  }
  const savingNs = Math.min(
    callNs,
    Math.max(
      maxOverDevices(chargedBySlot),
      projectedSavingNs(input, (g) => heldBySync[g] === 1),
    ),
  );
  if (perCall.size === 0 || savingNs < ctx.options.minSavingNs) {
    return undefined;
  }
  const calls = byWeightDesc(perCall.keyArray(), (op) => perCall.get(op)!);
  const names = [...new Set(calls.map((op) => trace.strings.get(cols.nameId[op]!)))].join(', ');
  const devices = ctx.devices.length;
  const idleNs = idleBySlot.reduce((x, y) => x + y, 0);
  const chargedNs = chargedBySlot.reduce((x, y) => x + y, 0);
  return finding(
    'device-sync',
    'warning',
    'Synchronization holds back GPU work',
    `${calls.length} synchronization call${calls.length === 1 ? '' : 's'} (${names}) held the host until the GPU caught up, so the next work was issued late: the GPU sat idle ${nsAndShare(idleNs, input.metrics.makespanNs, devices)} after them, ${formatDurationNs(chargedNs)} of it owed to the time the host spent blocked in them, and without the waits the run could end up to ${nsAndShare(savingNs, input.metrics.makespanNs)} sooner. Synchronize only where the host needs a result; order GPU work with cudaStreamWaitEvent, and wait on one event with cudaEventSynchronize instead of the whole device.`,
    calls,
    savingNs,
    ctx.options.maxFindingOps,
  );
}

/**
 * Nsight's `gpu_gaps`, at µs scale: device-wide idle gaps, with what caused each. The saving is
 * what the causes account for (`causeNs`: a host call or range only for the time the host spent
 * in it), not the gap time: launch latency and unexplained waits count for nothing. Summed per
 * GPU; GPUs run side by side, so the run gains at most the largest of them.
 */
export function gpuGapsRule(input: RuleInput): Finding | undefined {
  const { ctx, deviceGaps } = input;
  const threshold = ctx.options.gpuGapThresholdNs;
  const picked: number[] = [];
  let total = 0;
  const chargedBySlot = new Float64Array(ctx.devices.length);
  const nsByCause = new Float64Array(gapCauses.length);
  for (let g = 0; g < deviceGaps.count; g++) {
    const durNs = deviceGaps.toNs[g]! - deviceGaps.fromNs[g]!;
    if (durNs >= threshold) {
      picked.push(g);
      total += durNs;
      nsByCause[deviceGaps.cause[g]!]! += durNs;
      chargedBySlot[deviceGaps.deviceSlot[g]!]! += deviceGaps.causeNs[g]!;
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
    deviceGaps.causeRange[top],
  );
  const devices = ctx.devices.length;
  const chargedNs = chargedBySlot.reduce((x, y) => x + y, 0);
  return finding(
    'gpu-gaps',
    'warning',
    'GPU idle gaps',
    `${picked.length} GPU idle gap${picked.length === 1 ? '' : 's'} (no stream of the GPU busy) of at least ${formatDurationNs(threshold)}, ${nsAndShare(total, input.metrics.makespanNs, devices)} in all; by cause: ${causes}. Their causes account for ${formatDurationNs(chargedNs)} of it (the host's time in the calls and ranges that held it, and event, barrier and engine waits; launch latency and unexplained waits count for nothing). Largest: ${worst}`,
    picked.map((g) => deviceGaps.afterOp[g]!),
    maxOverDevices(chargedBySlot),
    ctx.options.maxFindingOps,
  );
}

/**
 * Nsight's `gpu_time_util`: the device span cut into chunks; chunks whose time utilization
 * (summed op time, so concurrent ops can pass 100%) is under the threshold are reported,
 * neighbours merged. The saving is what the causes of the device gaps inside them account for
 * (each gap's `causeNs`, in proportion to its part inside), the largest per GPU. Its ops are what
 * explains it: per GPU, the two GPU ops on either side of its largest idle gap inside the low
 * chunks (the one that ended before it, the one that ended it), the largest gap first.
 */
export function lowUtilizationRule(input: RuleInput): Finding | undefined {
  const { ctx } = input;
  const { cols, engineOf, options } = ctx;
  const chunks = Math.max(1, options.utilizationChunks);
  const lowRanges: string[] = [];
  let idleNs = 0;
  let lowChunks = 0;
  const lowRuns: { slot: number; fromNs: number; toNs: number }[] = [];
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
        lowRanges.push(`${formatTimeRange(rLo, rHi)} at ${(100 * util).toFixed(0)}%`);
        lowRuns.push({ slot, fromNs: rLo, toNs: rHi });
        runStart = -1;
      }
    }
  });
  if (lowChunks === 0 || idleNs < options.minSavingNs) {
    return undefined;
  }
  const chargedBySlot = chargedWithin(input, lowRuns);
  const largest = largestGapsWithin(input, lowRuns);
  const ops = largest.flatMap((g) => opsAroundGap(input, g));
  const top = largest[0];
  const worst =
    top === undefined
      ? ''
      : ` Largest idle gap inside them, ${formatTimeRange(input.deviceGaps.fromNs[top]!, input.deviceGaps.toNs[top]!)} ("show" selects the GPU ops on either side of it): ${explainGap(
          ctx,
          -1,
          input.deviceGaps.toNs[top]! - input.deviceGaps.fromNs[top]!,
          gapCauses[input.deviceGaps.cause[top]!]!,
          input.deviceGaps.afterOp[top]!,
          input.deviceGaps.causeOp[top]!,
          input.deviceGaps.causeRange[top],
        )}`;
  return finding(
    'low-utilization',
    'info',
    'Low GPU utilization',
    `${lowChunks} of ${chunks * ctx.devices.length} time chunks kept the GPU under ${(100 * options.utilizationThreshold).toFixed(0)}% busy: ${lowRanges.slice(0, 5).join('; ')}${lowRanges.length > 5 ? '; …' : ''}. The GPU was idle ${nsAndShare(idleNs, input.metrics.makespanNs, ctx.devices.length)} inside them, ${formatDurationNs(chargedBySlot.reduce((x, y) => x + y, 0))} of it owed to recorded causes; see the gap causes for why.${worst}`,
    ops,
    maxOverDevices(chargedBySlot),
    options.maxFindingOps,
  );
}

/** Per device slot: the `causeNs` of its device gaps, each in proportion to its part in `runs`. */
function chargedWithin(
  input: RuleInput,
  runs: readonly { slot: number; fromNs: number; toNs: number }[],
): Float64Array {
  const { deviceGaps } = input;
  const out = new Float64Array(input.ctx.devices.length);
  // Runs come in time order per device: one sorted list per slot, searched per gap.
  const bySlot = input.ctx.devices.map(() => ({ from: [] as number[], to: [] as number[] }));
  for (const run of runs) {
    bySlot[run.slot]!.from.push(run.fromNs);
    bySlot[run.slot]!.to.push(run.toNs);
  }
  for (let g = 0; g < deviceGaps.count; g++) {
    const charged = deviceGaps.causeNs[g]!;
    const fromNs = deviceGaps.fromNs[g]!;
    const toNs = deviceGaps.toNs[g]!;
    if (charged <= 0 || toNs <= fromNs) {
      continue;
    }
    const slot = deviceGaps.deviceSlot[g]!;
    const list = bySlot[slot]!;
    let lo = 0;
    let hi = list.to.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list.to[mid]! <= fromNs) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    let insideNs = 0;
    for (let r = lo; r < list.from.length && list.from[r]! < toNs; r++) {
      insideNs += Math.min(toNs, list.to[r]!) - Math.max(fromNs, list.from[r]!);
    }
    out[slot]! += (charged * insideNs) / (toNs - fromNs);
  }
  return out;
}
/**
 * Per device, its largest device gap (index into `deviceGaps`) that reaches into one of its
 * `runs`; the largest first.
 */
function largestGapsWithin(
  input: RuleInput,
  runs: readonly { slot: number; fromNs: number; toNs: number }[],
): number[] {
  const { deviceGaps } = input;
  const best = new Int32Array(input.ctx.devices.length).fill(-1);
  const dur = (g: number): number => deviceGaps.toNs[g]! - deviceGaps.fromNs[g]!;
  for (let g = 0; g < deviceGaps.count; g++) {
    const slot = deviceGaps.deviceSlot[g]!;
    if (best[slot]! >= 0 && dur(g) <= dur(best[slot]!)) {
      continue;
    }
    const fromNs = deviceGaps.fromNs[g]!;
    const toNs = deviceGaps.toNs[g]!;
    if (runs.some((r) => r.slot === slot && r.fromNs < toNs && fromNs < r.toNs)) {
      best[slot] = g;
    }
  }
  return byWeightDesc(
    [...best].filter((g) => g >= 0),
    dur,
  );
}

/**
 * The GPU work ops on either side of device gap `g`: one that ends where it starts (the device's
 * last work before it) and the one that ended it; -1s left out.
 */
function opsAroundGap(input: RuleInput, g: number): number[] {
  const { ctx, deviceGaps } = input;
  const fromNs = deviceGaps.fromNs[g]!;
  let before = -1;
  for (const track of ctx.tracksOfDevice[deviceGaps.deviceSlot[g]!]!) {
    for (const op of ctx.trace.ops.trackOpsInWindow(track, fromNs, fromNs)) {
      if (ctx.engineOf[op] !== noEngine && ctx.cols.endNs[op] === fromNs) {
        before = op;
        break;
      }
    }
    if (before >= 0) {
      break;
    }
  }
  return [before, deviceGaps.afterOp[g]!].filter((op) => op >= 0);
}
