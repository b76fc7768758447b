import type { Plan, PlanCopy, PlanOp } from '@streamscope/workload';
import { FixedName } from './fixed-names.ts';
import type { ApiCosts, DeviceProfile, FirstUseCall } from './profile.ts';

// Which CUDA API call a plan op is, what it costs the host, and whether the host waits for it.

/** Whether the call returns only once its command is done (pageable or synchronous copies, sync memsets). */
export function isBlocking(plan: Plan, op: PlanOp): boolean {
  if (op.kind === 'copy') {
    const pageable =
      plan.buffers[op.srcBuffer]!.kind === 'host-pageable' ||
      plan.buffers[op.dstBuffer]!.kind === 'host-pageable';
    // Pageable copies stage through a bounce buffer and return when done; cudaMemcpy blocks
    // except device to device.
    return pageable || (!op.async && op.direction !== 'dtod');
  }
  if (op.kind === 'memset') {
    return !op.async && plan.buffers[op.buffer]!.kind === 'host-pinned';
  }
  return false;
}

/** How a launch call behaves: what it costs the host, and what it waits for. */
export interface CallShape {
  /** Host time before the work is handed over, ns. */
  readonly costNs: number;
  /** The call returns only once its command has finished. */
  readonly blocks: boolean;
  /** Host time after the command finished (a blocking call's return), ns. */
  readonly tailNs: number;
  /** A pageable copy that runs at the pinned rate (one staged chunk). */
  readonly stagedWhole: boolean;
}

function isPageable(plan: Plan, op: PlanCopy): boolean {
  return (
    plan.buffers[op.srcBuffer]!.kind === 'host-pageable' ||
    plan.buffers[op.dstBuffer]!.kind === 'host-pageable'
  );
}

/**
 * The shape of a call that launches device work. Pageable copies with staging modelled
 * (profile.pageable): to the device the host stages the first chunk before the engine can start,
 * and a copy of one chunk or less returns once staged (its DMA runs on at the pinned rate); to
 * the host the call returns after the host copied the last chunk out.
 */
export function callShape(profile: DeviceProfile, plan: Plan, op: PlanOp, sync: number): CallShape {
  const costNs = launchCostNs(profile.api, op);
  const blocks = isBlocking(plan, op);
  const staging = profile.pageable;
  if (op.kind !== 'copy' || staging === null || !isPageable(plan, op)) {
    return { costNs, blocks, tailNs: blocks ? sync : 0, stagedWhole: false };
  }
  const staged = Math.min(op.bytes, staging.chunkBytes);
  const small = op.bytes <= staging.chunkBytes;
  if (op.direction === 'htod') {
    const leadNs = (staged / staging.htodStagingBytesPerS) * 1e9;
    return { costNs: costNs + leadNs, blocks: !small, tailNs: 0, stagedWhole: small };
  }
  if (op.direction === 'dtoh') {
    const tailNs = (staged / staging.dtohStagingBytesPerS) * 1e9;
    return { costNs, blocks: true, tailNs, stagedWhole: small };
  }
  return { costNs, blocks, tailNs: blocks ? sync : 0, stagedWhole: false };
}

/** Host cost of the call that launches device work, ns. */
export function launchCostNs(api: ApiCosts, op: PlanOp): number {
  return op.kind === 'kernel'
    ? api.launchKernel
    : op.kind === 'copy'
      ? api.memcpy
      : op.kind === 'memset'
        ? api.memset
        : api.launchHostFunc;
}

/** Which first-use cost the call launching `op` pays (profile.firstUseNs); null: none. */
export function firstUseCall(op: PlanOp): FirstUseCall | null {
  switch (op.kind) {
    case 'kernel':
      return 'launchKernel';
    case 'copy':
      return 'memcpy';
    case 'memset':
      return 'memset';
    default:
      return null;
  }
}

/** The API call that launches device work; FixedName.None for other ops. */
export function apiName(op: PlanOp): FixedName {
  switch (op.kind) {
    case 'kernel':
      return FixedName.CudaLaunchKernel;
    case 'memset':
      return op.async ? FixedName.CudaMemsetAsync : FixedName.CudaMemset;
    case 'hostFunc':
      return FixedName.CudaLaunchHostFunc;
    case 'copy':
      if (op.direction === 'ptop') {
        return op.async ? FixedName.CudaMemcpyPeerAsync : FixedName.CudaMemcpyPeer;
      }
      return op.async ? FixedName.CudaMemcpyAsync : FixedName.CudaMemcpy;
    default:
      return FixedName.None;
  }
}
