import { IdNumberMap, OpFlag, OpKind, formatBytes, formatDurationNs } from '@streamscope/trace';
import { isCopyEngine } from '../engines.ts';
import { NameFlag } from '../host-calls.ts';
import { intersectionNs, measure, measureWithin } from '../intervals.ts';
import { isPageable } from '../stats.ts';
import type { Finding } from '../types.ts';
import type { RuleInput } from './rule-input.ts';
import {
  byWeightDesc,
  deviceGapNsByCauseOp,
  finding,
  maxOverDevices,
  nsAndShare,
  projectedSavingNs,
} from './rule-input.ts';

/** Issued by a synchronous API: flagged Sync, or its API is cudaMemcpy/cudaMemset without Async. */
function issuedSync(input: RuleInput, op: number): boolean {
  const { cols, apiOf, nameFlags } = input.ctx;
  if ((cols.flags[op]! & OpFlag.Sync) !== 0) {
    return true;
  }
  const api = apiOf[op]!;
  return api >= 0 && (nameFlags[cols.nameId[api]!]! & NameFlag.SyncTransfer) !== 0;
}

function issuedAsync(input: RuleInput, op: number): boolean {
  const { cols, apiOf, nameFlags } = input.ctx;
  const api = apiOf[op]!;
  if (api >= 0) {
    return (nameFlags[cols.nameId[api]!]! & NameFlag.Async) !== 0;
  }
  return (cols.flags[op]! & OpFlag.Sync) === 0;
}

/**
 * Time lost to the host being held in the calls that issued `ops`: device idle time charged to
 * them (`causeNs`: only the time the host spent in each call, per op for ranking), and the larger
 * of the most charged on one GPU and the projected saving of the stream gaps blamed on them
 * (other streams may keep the device busy while one stream waits).
 */
function blockedGapNs(input: RuleInput, ops: readonly number[], byOp: IdNumberMap) {
  const { ctx } = input;
  let deviceIdleNs = 0;
  const perOp = new IdNumberMap();
  const perSlot = new Float64Array(ctx.devices.length);
  const blamed = new IdNumberMap();
  for (const op of ops) {
    const api = ctx.apiOf[op]!;
    const ns = (api >= 0 ? (byOp.get(api) ?? 0) : 0) + (byOp.get(op) ?? 0);
    perOp.set(op, ns);
    deviceIdleNs += ns;
    perSlot[ctx.deviceSlotOfTrack[ctx.cols.track[op]!]!]! += ns;
    blamed.set(op, 1);
    if (api >= 0) {
      blamed.set(api, 1);
    }
  }
  const gaps = input.streamGaps;
  const streamNs = projectedSavingNs(input, (g) => blamed.has(gaps.causeOp[g]!));
  return { total: Math.max(maxOverDevices(perSlot), streamNs), deviceIdleNs, perOp };
}

/**
 * How long the blamed transfers took, end to end: per op the span of its call and its GPU work
 * together. No estimate for them may exceed it.
 */
function tookNs(input: RuleInput, ops: readonly number[]): number {
  const { cols, apiOf } = input.ctx;
  let total = 0;
  for (const op of ops) {
    const api = apiOf[op]!;
    const fromNs = api >= 0 ? Math.min(cols.startNs[api]!, cols.startNs[op]!) : cols.startNs[op]!;
    const toNs = api >= 0 ? Math.max(cols.endNs[api]!, cols.endNs[op]!) : cols.endNs[op]!;
    total += toNs - fromNs;
  }
  return total;
}

/** Compute time with no copy beside it, over all devices (what better overlap could hide). */
function kernelOnlyNs(input: RuleInput): number {
  let total = 0;
  for (const device of input.ctx.devices) {
    total += measure(device.compute) - intersectionNs(device.copies, device.compute);
  }
  return total;
}

/** Nsight's `cuda_memcpy_async`: async copies with pageable host memory run staged and block. */
export function pageableCopyRule(input: RuleInput): Finding | undefined {
  const { ctx } = input;
  const { cols, engineOf } = ctx;
  const ops: number[] = [];
  // Reference: what pinned copies achieved per direction in this trace (bytes / ns = GB/s).
  const pinnedBytes = new Float64Array(8);
  const pinnedNs = new Float64Array(8);
  for (let i = 0; i < cols.count; i++) {
    if (!isCopyEngine(engineOf[i]!)) {
      continue;
    }
    if (isPageable(cols.memKinds[i]!)) {
      if (issuedAsync(input, i)) {
        ops.push(i);
      }
    } else if (cols.memKinds[i] !== 0) {
      pinnedBytes[cols.kind[i]!]! += cols.bytes[i]!;
      pinnedNs[cols.kind[i]!]! += cols.endNs[i]! - cols.startNs[i]!;
    }
  }
  if (ops.length === 0) {
    return undefined;
  }
  let bytes = 0;
  let slowerNs = 0;
  let pageableNs = 0;
  const extraNs = new IdNumberMap();
  for (const op of ops) {
    const durNs = cols.endNs[op]! - cols.startNs[op]!;
    const kind = cols.kind[op]!;
    bytes += cols.bytes[op]!;
    pageableNs += durNs;
    const gbps = pinnedNs[kind]! > 0 ? pinnedBytes[kind]! / pinnedNs[kind]! : 0;
    const extra = gbps > 0 ? Math.max(0, durNs - cols.bytes[op]! / gbps) : 0;
    extraNs.set(op, extra);
    slowerNs += extra;
  }
  const blocked = blockedGapNs(input, ops, deviceGapNsByCauseOp(input));
  // Pinned, they could also run beside compute: at most the kernel time no copy hides yet.
  let exposedNs = 0;
  for (const op of ops) {
    const device = ctx.devices[ctx.deviceSlotOfTrack[cols.track[op]!]!]!;
    const startNs = Math.max(cols.startNs[op]!, ctx.window.fromNs);
    const endNs = Math.min(cols.endNs[op]!, ctx.window.toNs);
    exposedNs += endNs - startNs - measureWithin(device.compute, startNs, endNs);
  }
  // Pinned, they also take less time (slowerNs less): only what is left of them can hide, or the
  // saving counts the time pinning removes twice (it came to more than the copies took).
  const pinnedShare = pageableNs > 0 ? (pageableNs - slowerNs) / pageableNs : 1;
  const overlapNs = Math.min(exposedNs * pinnedShare, kernelOnlyNs(input));
  const saving = Math.min(tookNs(input, ops), slowerNs + Math.max(blocked.total, overlapNs));
  const pageableGBps = pageableNs > 0 ? bytes / pageableNs : 0;
  const reference =
    slowerNs > 0
      ? ` Pinned copies in this trace moved the same direction faster; at their rate these would take ${formatDurationNs(pageableNs - slowerNs)} instead of ${formatDurationNs(pageableNs)}.`
      : ' This trace has no pinned copy of the same direction to compare with.';
  const idle =
    blocked.deviceIdleNs > 0
      ? ` The GPU sat idle ${nsAndShare(blocked.deviceIdleNs, input.metrics.makespanNs, ctx.devices.length)} while the host was held in them.`
      : '';
  const beside =
    overlapNs > 0
      ? ` Pinned, they could run beside kernels: ${formatDurationNs(overlapNs)} of compute has no copy beside it.`
      : '';
  return finding(
    'pageable-copy',
    'warning',
    'Async copies with pageable host memory',
    `${ops.length} async cop${ops.length === 1 ? 'y' : 'ies'} (${formatBytes(bytes)}, ${pageableGBps.toFixed(2)} GB/s) used pageable host memory, so the driver staged them and they did not run asynchronously.${reference}${idle}${beside} Allocate the host buffers with cudaMallocHost or cudaHostAlloc (pinned).`,
    byWeightDesc(ops, (op) => (extraNs.get(op) ?? 0) + (blocked.perOp.get(op) ?? 0)),
    saving,
    ctx.options.maxFindingOps,
  );
}

/** Nsight's `cuda_memcpy_sync`: synchronous copies block the host (small H2D copies excluded). */
export function syncCopyRule(input: RuleInput): Finding | undefined {
  const { ctx } = input;
  const { cols, engineOf } = ctx;
  const ops: number[] = [];
  let bytes = 0;
  let durNs = 0;
  for (let i = 0; i < cols.count; i++) {
    if (!isCopyEngine(engineOf[i]!) || !issuedSync(input, i)) {
      continue;
    }
    if (cols.kind[i] === OpKind.CopyHtoD && cols.bytes[i]! <= ctx.options.syncCopyMinHtoDBytes) {
      continue;
    }
    ops.push(i);
    bytes += cols.bytes[i]!;
    durNs += cols.endNs[i]! - cols.startNs[i]!;
  }
  if (ops.length === 0) {
    return undefined;
  }
  const blocked = blockedGapNs(input, ops, deviceGapNsByCauseOp(input));
  const savingNs = Math.min(tookNs(input, ops), blocked.total);
  return finding(
    'sync-copy',
    'warning',
    'Synchronous copies',
    `${ops.length} synchronous cop${ops.length === 1 ? 'y' : 'ies'} (${formatBytes(bytes)}, ${formatDurationNs(durNs)} on the GPU) blocked the host until each finished; the GPU sat idle ${nsAndShare(blocked.deviceIdleNs, input.metrics.makespanNs, ctx.devices.length)} waiting for the host held in them to issue more work, and without the waits the run could end up to ${nsAndShare(savingNs, input.metrics.makespanNs)} sooner. Use cudaMemcpyAsync on a non-default stream with pinned memory and synchronize once, where the result is needed.`,
    byWeightDesc(ops, (op) => blocked.perOp.get(op) ?? 0),
    savingNs,
    ctx.options.maxFindingOps,
  );
}

/** Nsight's `cuda_memset_sync`: cudaMemset (not Async) blocks the host. */
export function syncMemsetRule(input: RuleInput): Finding | undefined {
  const { ctx } = input;
  const { cols, deviceSlotOfTrack, window } = ctx;
  const ops: number[] = [];
  for (let i = 0; i < cols.count; i++) {
    if (
      cols.kind[i] === OpKind.Memset &&
      deviceSlotOfTrack[cols.track[i]!]! >= 0 &&
      cols.endNs[i]! >= window.fromNs &&
      cols.startNs[i]! <= window.toNs &&
      issuedSync(input, i)
    ) {
      ops.push(i);
    }
  }
  if (ops.length === 0) {
    return undefined;
  }
  const blocked = blockedGapNs(input, ops, deviceGapNsByCauseOp(input));
  const savingNs = Math.min(tookNs(input, ops), blocked.total);
  return finding(
    'sync-memset',
    'warning',
    'Synchronous memsets',
    `${ops.length} synchronous memset${ops.length === 1 ? '' : 's'} blocked the host; the GPU sat idle ${nsAndShare(blocked.deviceIdleNs, input.metrics.makespanNs, ctx.devices.length)} while the host was held in them, and without the waits the run could end up to ${nsAndShare(savingNs, input.metrics.makespanNs)} sooner. Use cudaMemsetAsync on the stream that uses the buffer.`,
    byWeightDesc(ops, (op) => blocked.perOp.get(op) ?? 0),
    savingNs,
    ctx.options.maxFindingOps,
  );
}
