import type { OpColumns, Trace } from '@streamscope/trace';
import { OpKind } from '@streamscope/trace';
import { Engine } from './engines.ts';
import type { HostRanges } from './host-ranges.ts';

/** What a kernel does. Indices into per-class arrays; `kernelClassNames` names them in JSON. */
export const KernelClass = { Compute: 0, Communication: 1, Memory: 2 } as const;
export type KernelClass = (typeof KernelClass)[keyof typeof KernelClass];
export const kernelClassCount = 3;
/** `kernelClassOf` value of ops that are no kernel (copies, markers, host ops). */
export const noKernelClass = 255;
export const kernelClassNames = ['compute', 'communication', 'memory'] as const;

// NCCL and RCCL collectives and point-to-point kernels: ncclDevKernel_AllReduce_Sum_f32_RING_LL,
// ncclKernel_AllGather_RING_LL_Sum_int8_t, "void ncclDevKernel_SendRecv(...)", mangled names.
const communicationName = /(?:^|[^A-Za-z])[nr]ccl[A-Z_]/;
// Kernels that only move or fill memory (CUDA's own copies and memsets are copy and memset ops).
const memoryName = /mem(?:cpy|set)/i;
// Host ranges PyTorch's process groups put around a collective's launch ("nccl:all_reduce",
// "record_param_comms"): a kineto trace's category for the kernel launched inside.
const communicationRange = /^(?:[nr]ccl:|record_param_comms$)/;

/** The class a kernel's name alone gives it. */
export function kernelClassOfName(name: string): KernelClass {
  if (memoryName.test(name)) {
    return KernelClass.Memory;
  }
  return communicationName.test(name) ? KernelClass.Communication : KernelClass.Compute;
}

/**
 * Per op: its `KernelClass` for ops on the compute engine (kernels; a graph launch traced as one
 * item is compute), `noKernelClass` for the rest. By name (memcpy/memset kernels are memory,
 * nccl and rccl kernels communication), and by category where the trace has one: a kernel whose
 * launch call ran inside a collective's host range is communication unless its name says memory.
 */
export function classifyKernels(
  trace: Trace,
  cols: OpColumns,
  engineOf: Uint8Array,
  apiOf: Int32Array,
  hostRanges: HostRanges,
): Uint8Array {
  const n = cols.count;
  const out = new Uint8Array(n).fill(noKernelClass);
  // Per string id: its class + 1 once seen (0: not yet), a typed array rather than a Map.
  const byName = new Uint8Array(trace.strings.count);
  const rangeNames = trace.ranges.columns().nameId;
  const rangeIsComm = new Map<number, boolean>();
  const useRanges = hasCommRange(trace, rangeNames, rangeIsComm);
  for (let i = 0; i < n; i++) {
    if (engineOf[i] !== Engine.Compute) {
      continue;
    }
    if (cols.kind[i] !== OpKind.Kernel) {
      out[i] = KernelClass.Compute;
      continue;
    }
    const nameId = cols.nameId[i]!;
    if (byName[nameId] === 0) {
      byName[nameId] = kernelClassOfName(trace.strings.get(nameId)) + 1;
    }
    let cls = (byName[nameId]! - 1) as KernelClass;
    const api = apiOf[i]!;
    if (cls === KernelClass.Compute && useRanges && api >= 0) {
      const range = hostRanges.innermostAt(cols.track[api]!, cols.startNs[api]!);
      if (range >= 0 && insideCommRange(hostRanges, range, rangeNames, trace, rangeIsComm)) {
        cls = KernelClass.Communication;
      }
    }
    out[i] = cls;
  }
  return out;
}

/** Whether any host range is a collective's (else no launch needs looking up). */
function hasCommRange(trace: Trace, rangeNames: Uint32Array, cache: Map<number, boolean>): boolean {
  let any = false;
  for (let r = 0; r < rangeNames.length; r++) {
    const nameId = rangeNames[r]!;
    if (!cache.has(nameId)) {
      const hit = communicationRange.test(trace.strings.get(nameId));
      cache.set(nameId, hit);
      any ||= hit;
    }
  }
  return any;
}

/** Whether `range` or a range enclosing it is a collective's. */
function insideCommRange(
  hostRanges: HostRanges,
  range: number,
  rangeNames: Uint32Array,
  trace: Trace,
  cache: Map<number, boolean>,
): boolean {
  for (let r = range; r >= 0; r = hostRanges.enclosing(r)) {
    const nameId = rangeNames[r]!;
    let hit = cache.get(nameId);
    if (hit === undefined) {
      hit = communicationRange.test(trace.strings.get(nameId));
      cache.set(nameId, hit);
    }
    if (hit) {
      return true;
    }
  }
  return false;
}
