import type { OpColumns } from '@streamscope/trace';
import { OpFlag, OpKind, isCopyKind } from '@streamscope/trace';
import type { AnalysisContext } from './context.ts';
import { isPageable } from './stats.ts';
import type { GapCause } from './types.ts';

/** How a host op holds the host: one of the blocking gap causes, or 'host-busy' (working). */
export type HostHold = Extract<GapCause, 'host-sync' | 'sync-copy' | 'alloc-sync' | 'host-busy'>;

const syncApi = /Synchronize$/;
// cudaMalloc may, and cudaFree (cudaFreeHost too) does, synchronize the device; allocating
// pinned host memory (cudaMallocHost, cuMemHostAlloc) is slow but does not.
const allocApi = /^cu(da)?(Malloc(?!Host)|Free|MemAlloc|MemFree)/;
const transferApi = /^cu(da)?(Memcpy|Memset)/;
// nsys and CUPTI name calls with version and per-thread suffixes: cudaMemcpyAsync_ptsz_v7000.
const apiSuffix = /(_pt(sz|ds))?(_v\d+)?$/;

/** An API name without its version or per-thread suffix ("cudaStreamSynchronize_v3020" → …). */
export function apiBaseName(name: string): string {
  return name.replace(apiSuffix, '');
}

/**
 * Classifies host op `h` (on a host-thread track): blocked in a synchronize, in a synchronous
 * or pageable copy, in an allocator call that synchronizes the device, or just busy.
 * Caches per name id in `cache` (the same call name is seen many times).
 */
export function hostHold(ctx: AnalysisContext, h: number, cache: Map<number, HostHold>): HostHold {
  const { cols } = ctx;
  const kind = cols.kind[h]!;
  if (kind === OpKind.StreamSync || kind === OpKind.DeviceSync || kind === OpKind.EventSync) {
    return 'host-sync';
  }
  if ((isCopyKind(kind) || kind === OpKind.Memset) && (cols.flags[h]! & OpFlag.Sync) !== 0) {
    return 'sync-copy';
  }
  if (kind !== OpKind.ApiCall && kind !== OpKind.Alloc && kind !== OpKind.Free) {
    return 'host-busy';
  }
  // A transfer is blocking when its GPU op says so, whatever the API is called.
  const gpu = ctx.gpuOfApi[h]!;
  if (gpu >= 0) {
    const gpuKind = cols.kind[gpu]!;
    if ((isCopyKind(gpuKind) || gpuKind === OpKind.Memset) && ctx.blockingOf[gpu] === 1) {
      return 'sync-copy';
    }
  }
  const nameId = cols.nameId[h]!;
  const cached = cache.get(nameId);
  if (cached !== undefined) {
    return cached;
  }
  const name = apiBaseName(ctx.trace.strings.get(nameId));
  let hold: HostHold = 'host-busy';
  if (syncApi.test(name)) {
    hold = 'host-sync';
  } else if (kind === OpKind.Alloc || kind === OpKind.Free || allocApi.test(name)) {
    hold = name.includes('Async') ? 'host-busy' : 'alloc-sync';
  } else if (transferApi.test(name) && !name.includes('Async') && gpu < 0) {
    hold = 'sync-copy';
  }
  cache.set(nameId, hold);
  return hold;
}

/**
 * Whether the call that enqueued GPU op `gpu` (API call `api`, or -1) blocks the host until the
 * op is under way, by the API's semantics: the op is flagged Sync, the API is a transfer without
 * `Async` (cudaMemcpy, cudaMemset, cuMemcpyHtoD), or it is a copy or memset touching pageable
 * host memory, which the driver stages synchronously. Everything else (kernel launches,
 * cudaLaunchKernelExC, cuLaunchKernel, cudaGraphLaunch, cudaMemsetAsync, cudaMemcpyAsync on pinned
 * or device memory) returns as soon as the work is queued.
 */
export function enqueuedBlocking(
  cols: OpColumns,
  nameFlags: Uint8Array,
  gpu: number,
  api: number,
): boolean {
  const kind = cols.kind[gpu]!;
  if (!isCopyKind(kind) && kind !== OpKind.Memset) {
    // Kernel and graph launches, event records: queued and returned.
    return false;
  }
  if ((cols.flags[gpu]! & OpFlag.Sync) !== 0) {
    return true;
  }
  if (api >= 0 && (nameFlags[cols.nameId[api]!]! & NameFlag.SyncTransfer) !== 0) {
    return true;
  }
  return isPageable(cols.memKinds[gpu]!);
}

/**
 * Per op: 1 where `enqueuedBlocking` holds for it and its API call, else 0. Walks the ops in
 * their stored order, where an API call sits beside the op it enqueued, so the lookups stay in
 * cache (per stream order would jump around the columns).
 */
export function blockingEnqueues(
  cols: OpColumns,
  nameFlags: Uint8Array,
  apiOf: Int32Array,
): Uint8Array {
  const out = new Uint8Array(cols.count);
  for (let i = 0; i < cols.count; i++) {
    if (apiOf[i]! >= 0 || (cols.flags[i]! & OpFlag.Sync) !== 0) {
      out[i] = enqueuedBlocking(cols, nameFlags, i, apiOf[i]!) ? 1 : 0;
    }
  }
  return out;
}

/** True for an API call named like a transfer issued without `Async` (cudaMemcpy, cudaMemset). */
function isSyncTransferApiName(name: string): boolean {
  const base = apiBaseName(name);
  return transferApi.test(base) && !base.includes('Async');
}

/** Bits of `nameFlagsOf`: what an API name says about the call. */
export const NameFlag = { Async: 1, SyncTransfer: 2 } as const;

/** Per interned string: `NameFlag` bits, so per-op checks are one array read, not a regex. */
export function nameFlagsOf(strings: {
  readonly count: number;
  get(id: number): string;
}): Uint8Array {
  const flags = new Uint8Array(strings.count);
  for (let id = 0; id < strings.count; id++) {
    const name = strings.get(id);
    flags[id] =
      (name.includes('Async') ? NameFlag.Async : 0) |
      (isSyncTransferApiName(name) ? NameFlag.SyncTransfer : 0);
  }
  return flags;
}
