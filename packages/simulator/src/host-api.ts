import type { Plan, PlanOp } from '@streamscope/workload';
import { FixedName } from './fixed-names.ts';
import type { ApiCosts } from './profile.ts';

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
