import type { Trace } from '@streamscope/trace';
import {
  MemKind,
  OpFlag,
  OpKind,
  dstMemKind,
  isCopyKind,
  opKindName,
  srcMemKind,
} from '@streamscope/trace';
import { sortFloat64 } from './radix-sort.ts';
import type { AnalysisContext } from './context.ts';
import { Engine, noEngine } from './engines.ts';
import { kernelClassNames } from './kernel-classes.ts';
import type { CopyDirectionBandwidth, CopyStat, KernelStat } from './types.ts';

/** Per kernel name, like `nsys stats -r cuda_gpu_kern_sum`; sorted by total time, largest first. */
export function kernelStats(ctx: AnalysisContext): KernelStat[] {
  const { cols, engineOf, trace } = ctx;
  // Counting sort of kernel durations by name id: one segment per name, then a native sort each.
  const nameCount = trace.strings.count;
  const perName = new Int32Array(nameCount + 1);
  let kernelTotal = 0;
  // Kernels only: a graph traced as one item keeps the compute engine busy but is no kernel.
  const isKernel = (i: number): boolean =>
    engineOf[i] === Engine.Compute && cols.kind[i] === OpKind.Kernel;
  // A name's class: communication if any of its kernels is (a launch inside a collective's range).
  const classOfName = new Uint8Array(nameCount);
  for (let i = 0; i < cols.count; i++) {
    if (isKernel(i)) {
      perName[cols.nameId[i]! + 1]!++;
      kernelTotal++;
      classOfName[cols.nameId[i]!] = Math.max(classOfName[cols.nameId[i]!]!, ctx.kernelClassOf[i]!);
    }
  }
  const offset = new Int32Array(nameCount + 1);
  for (let k = 1; k <= nameCount; k++) {
    offset[k] = offset[k - 1]! + perName[k]!;
  }
  const fill = offset.slice(0, nameCount);
  const durations = new Float64Array(kernelTotal);
  let grandTotalNs = 0;
  for (let i = 0; i < cols.count; i++) {
    if (isKernel(i)) {
      const durNs = cols.endNs[i]! - cols.startNs[i]!;
      durations[fill[cols.nameId[i]!]!++] = durNs;
      grandTotalNs += durNs;
    }
  }
  const rows: KernelStat[] = [];
  for (let id = 0; id < nameCount; id++) {
    const count = perName[id + 1]!;
    if (count === 0) {
      continue;
    }
    const first = offset[id]!;
    const segment = durations.subarray(first, first + count);
    sortFloat64(segment);
    const { totalNs, stdDevNs } = sumAndStdDev(segment);
    rows.push({
      name: trace.strings.get(id),
      kernelClass: kernelClassNames[classOfName[id]!] ?? 'compute',
      count,
      totalNs,
      avgNs: totalNs / count,
      medNs: medianOfSorted(segment),
      minNs: segment[0]!,
      maxNs: segment[count - 1]!,
      stdDevNs,
      timeShare: grandTotalNs > 0 ? totalNs / grandTotalNs : 0,
    });
  }
  return rows.sort((a, b) => b.totalNs - a.totalNs || a.name.localeCompare(b.name));
}

const copyRowKinds = [
  OpKind.CopyHtoD,
  OpKind.CopyDtoH,
  OpKind.CopyDtoD,
  OpKind.CopyPtoP,
  OpKind.CopyHtoH,
  OpKind.Memset,
];

/** Per copy kind and memset, like `cuda_gpu_mem_time_sum` + `cuda_gpu_mem_size_sum`. */
export function copyStats(ctx: AnalysisContext): CopyStat[] {
  const { cols, deviceSlotOfTrack } = ctx;
  // One pass to count per kind, one to fill each kind's durations (kinds fit in 32 slots).
  const counts = new Int32Array(32);
  const rowOf = new Int32Array(32).fill(-1);
  copyRowKinds.forEach((kind, r) => {
    rowOf[kind] = r;
  });
  const kinds = cols.kind;
  for (let i = 0; i < cols.count; i++) {
    if (rowOf[kinds[i]!]! >= 0 && inWindowOnGpu(ctx, i, deviceSlotOfTrack)) {
      counts[kinds[i]!]!++;
    }
  }
  const durations = copyRowKinds.map((kind) => new Float64Array(counts[kind]!));
  const fill = new Int32Array(copyRowKinds.length);
  const bytes = new Float64Array(copyRowKinds.length);
  // Ops whose size is known, and their time: bandwidth is their bytes over it.
  const sized = new Int32Array(copyRowKinds.length);
  const sizedNs = new Float64Array(copyRowKinds.length);
  const pageable = new Int32Array(copyRowKinds.length);
  for (let i = 0; i < cols.count; i++) {
    const r = rowOf[cols.kind[i]!]!;
    if (r < 0 || !inWindowOnGpu(ctx, i, deviceSlotOfTrack)) {
      continue;
    }
    const durNs = cols.endNs[i]! - cols.startNs[i]!;
    durations[r]![fill[r]!++] = durNs;
    bytes[r]! += cols.bytes[i]!;
    if (hasSize(cols.flags[i]!)) {
      sized[r]!++;
      sizedNs[r]! += durNs;
    }
    if (isPageable(cols.memKinds[i]!)) {
      pageable[r]!++;
    }
  }
  const rows: CopyStat[] = [];
  copyRowKinds.forEach((kind, r) => {
    const values = durations[r]!;
    const count = values.length;
    if (count === 0) {
      return;
    }
    let minNs = Infinity;
    let maxNs = -Infinity;
    for (let k = 0; k < count; k++) {
      minNs = Math.min(minNs, values[k]!);
      maxNs = Math.max(maxNs, values[k]!);
    }
    const { totalNs, stdDevNs } = sumAndStdDev(values);
    rows.push({
      kind: opKindName(kind),
      count,
      bytes: bytes[r]!,
      totalNs,
      avgNs: totalNs / count,
      minNs,
      maxNs,
      stdDevNs,
      avgGBps: averageGBps(bytes[r]!, sizedNs[r]!, sized[r]!),
      pageableCount: pageable[r]!,
    });
  });
  return rows;
}

/** Achieved bandwidth per copy direction: bytes over summed durations, and the per-op range. */
export function bandwidthByDirection(ctx: AnalysisContext): CopyDirectionBandwidth[] {
  const { cols, engineOf } = ctx;
  const rows: CopyDirectionBandwidth[] = [];
  const engines = [Engine.CopyHtoD, Engine.CopyDtoH, Engine.CopyDtoD, Engine.CopyPtoP];
  const kinds = [OpKind.CopyHtoD, OpKind.CopyDtoH, OpKind.CopyDtoD, OpKind.CopyPtoP];
  engines.forEach((engine, d) => {
    let count = 0;
    let bytes = 0;
    let totalNs = 0;
    let sized = 0;
    let sizedNs = 0;
    let minGBps = Infinity;
    let maxGBps = 0;
    for (let i = 0; i < cols.count; i++) {
      if (engineOf[i] !== engine) {
        continue;
      }
      const durNs = cols.endNs[i]! - cols.startNs[i]!;
      count++;
      bytes += cols.bytes[i]!;
      totalNs += durNs;
      if (!hasSize(cols.flags[i]!)) {
        continue;
      }
      sized++;
      sizedNs += durNs;
      if (durNs > 0) {
        const gbps = cols.bytes[i]! / durNs;
        minGBps = Math.min(minGBps, gbps);
        maxGBps = Math.max(maxGBps, gbps);
      }
    }
    if (count > 0) {
      rows.push({
        kind: opKindName(kinds[d]!),
        count,
        bytes,
        totalNs,
        avgGBps: averageGBps(bytes, sizedNs, sized),
        minGBps: sized === 0 ? Number.NaN : Number.isFinite(minGBps) ? minGBps : 0,
        maxGBps: sized === 0 ? Number.NaN : maxGBps,
      });
    }
  });
  return rows;
}

/** False for a copy or memset whose size the source did not record (its bytes say 0). */
function hasSize(flags: number): boolean {
  return (flags & OpFlag.BytesUnknown) === 0;
}

/**
 * Bytes over the time of the `sized` ops with a known size, in GB/s; NaN when none had a known
 * size (an import that recorded none): unknown, not 0 GB/s.
 */
function averageGBps(bytes: number, sizedNs: number, sized: number): number {
  if (sized === 0) {
    return Number.NaN;
  }
  return sizedNs > 0 ? bytes / sizedNs : 0;
}

export function isPageable(memKinds: number): boolean {
  return srcMemKind(memKinds) === MemKind.Pageable || dstMemKind(memKinds) === MemKind.Pageable;
}

function inWindowOnGpu(ctx: AnalysisContext, i: number, deviceSlotOfTrack: Int32Array): boolean {
  if (ctx.engineOf[i] !== noEngine) {
    return true;
  }
  const { cols, window } = ctx;
  // Host-to-host copies keep no GPU engine busy but still belong in the table.
  return (
    deviceSlotOfTrack[cols.track[i]!]! >= 0 &&
    cols.endNs[i]! >= window.fromNs &&
    cols.startNs[i]! <= window.toNs
  );
}

function sumAndStdDev(values: Float64Array): { totalNs: number; stdDevNs: number } {
  let totalNs = 0;
  for (let k = 0; k < values.length; k++) {
    totalNs += values[k]!;
  }
  const mean = totalNs / values.length;
  let squares = 0;
  for (let k = 0; k < values.length; k++) {
    squares += (values[k]! - mean) ** 2;
  }
  // Sample standard deviation, as nsys reports it (0 for a single value).
  const stdDevNs = values.length > 1 ? Math.sqrt(squares / (values.length - 1)) : 0;
  return { totalNs, stdDevNs };
}

function medianOfSorted(values: Float64Array): number {
  const n = values.length;
  const mid = n >>> 1;
  return n % 2 === 1 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
}

/**
 * Per op: achieved bandwidth of each copy and memset in GB/s (bytes per ns); NaN for others and
 * for those whose size is unknown.
 */
export function copyBandwidthsGBps(trace: Trace): Float64Array {
  const cols = trace.ops.columns();
  const out = new Float64Array(cols.count).fill(NaN);
  for (let i = 0; i < cols.count; i++) {
    const kind = cols.kind[i]!;
    const durNs = cols.endNs[i]! - cols.startNs[i]!;
    if ((isCopyKind(kind) || kind === OpKind.Memset) && durNs > 0 && hasSize(cols.flags[i]!)) {
      out[i] = cols.bytes[i]! / durNs;
    }
  }
  return out;
}
