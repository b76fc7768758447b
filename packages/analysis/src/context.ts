import type { OpColumns, Trace } from '@streamscope/trace';
import { FlowKind, IdNumberMap } from '@streamscope/trace';
import {
  Engine,
  engineCount,
  engineOfKind,
  isCopyEngine,
  noEngine,
  occupiesStream,
} from './engines.ts';
import type { IntervalList } from './intervals.ts';
import { mergeSorted, sortIfNeeded, unionInPlace, unionOfSorted } from './intervals.ts';
import type { AnalysisOptions, TimeWindow } from './types.ts';
import { defaultAnalysisOptions } from './types.ts';
import { linkApiCalls } from './api-links.ts';
import { blockingEnqueues, nameFlagsOf } from './host-calls.ts';
import { HostRanges } from './host-ranges.ts';
import { KernelClass, classifyKernels, kernelClassCount } from './kernel-classes.ts';
import type { TrackWalk } from './track-walk.ts';
import { gatherTrackWalk } from './track-walk.ts';

/** One device's engine unions inside the window (ns, clipped). */
export interface DeviceUnions {
  readonly deviceId: number;
  /** `byEngine[Engine.X]`: union of that engine's ops. */
  readonly byEngine: IntervalList[];
  /** `sortedStarts/sortedEnds[Engine.X]`: that engine's op starts and ends, each ascending. */
  readonly sortedStarts: Float64Array[];
  readonly sortedEnds: Float64Array[];
  /** Starts and ends of every copy (all directions), each ascending. */
  readonly copySortedStarts: Float64Array;
  readonly copySortedEnds: Float64Array;
  readonly copies: IntervalList;
  /** Every kernel (the SMs busy, whatever the class). */
  readonly kernels: IntervalList;
  /** Kernels by class (`kernelClassOf`): compute excludes communication and memory kernels. */
  readonly compute: IntervalList;
  readonly communication: IntervalList;
  readonly memoryKernels: IntervalList;
  readonly all: IntervalList;
}

/**
 * Everything the metrics, gaps and rules share, computed once per analysis: columns, which
 * tracks are GPU streams, the op → engine map, API ↔ GPU links and per-device unions.
 */
export interface AnalysisContext {
  readonly trace: Trace;
  readonly cols: OpColumns;
  readonly options: AnalysisOptions;
  /** The analysed window: the one asked for, else the first GPU op's start to the last's end. */
  readonly window: TimeWindow;
  /** The window asked for (±Infinity when none was): what host ranges are clipped to. */
  readonly requested: TimeWindow;
  /** Per track: device slot (index into `devices`) for GPU streams, -1 for host threads. */
  readonly deviceSlotOfTrack: Int32Array;
  readonly devices: DeviceUnions[];
  /** GPU stream tracks, by device slot. */
  readonly tracksOfDevice: number[][];
  /** Per op: its engine (`Engine`), or `noEngine` for markers, host ops and ops outside the window. */
  readonly engineOf: Uint8Array;
  /** Per op on the compute engine: its `KernelClass`; `noKernelClass` for the rest. */
  readonly kernelClassOf: Uint8Array;
  /** Per op: index of the host API call that enqueued it, or -1. */
  readonly apiOf: Int32Array;
  /** Per API call op: the GPU op it enqueued, or -1. */
  readonly gpuOfApi: Int32Array;
  /**
   * The event record a wait op (stream wait, event sync) waited on, or -1 (also for any other
   * op). Kept for the waits alone: a column of every op cost 4 bytes an op, 0.7 GB at 176M ops.
   */
  readonly recordOfWait: (op: number) => number;
  /** Per interned string: `NameFlag` bits (API names that are async, synchronous transfers). */
  readonly nameFlags: Uint8Array;
  /** Per op: 1 when the call that enqueued it blocks the host (`enqueuedBlocking`), else 0. */
  readonly blockingOf: Uint8Array;
  /** GPU stream ops gathered track-major for sequential walks. */
  readonly walk: TrackWalk;
  /** What each host thread was doing: its nested ranges (NVTX, kineto CPU ops, annotations). */
  readonly hostRanges: HostRanges;
  /** First GPU work start and last end inside the window; 0, 0 when there is none. */
  readonly gpuFromNs: number;
  readonly gpuToNs: number;
  readonly gpuOpCount: number;
}

/** Builds the shared context for `trace` over `window` (default: the whole trace). */
export function buildContext(
  trace: Trace,
  window?: TimeWindow,
  options: Partial<AnalysisOptions> = {},
): AnalysisContext {
  const cols = trace.ops.columns();
  const n = cols.count;
  const fromNs = window?.fromNs ?? -Infinity;
  const toNs = window?.toNs ?? Infinity;
  const trackCount = trace.tracks.length;

  const deviceSlotOfTrack = new Int32Array(trackCount).fill(-1);
  const deviceIds: number[] = [];
  const tracksOfDevice: number[][] = [];
  trace.tracks.forEach((info, t) => {
    if (info.kind !== 'gpu-stream') {
      return;
    }
    let slot = deviceIds.indexOf(info.deviceId);
    if (slot < 0) {
      slot = deviceIds.length;
      deviceIds.push(info.deviceId);
      tracksOfDevice.push([]);
    }
    deviceSlotOfTrack[t] = slot;
    tracksOfDevice[slot]!.push(t);
  });

  // Per op engine, and per device/engine counts so columns can be sized exactly.
  const engineOf = new Uint8Array(n).fill(noEngine);
  const counts = new Int32Array(deviceIds.length * engineCount);
  let gpuFrom = Infinity;
  let gpuTo = -Infinity;
  let gpuOpCount = 0;
  for (let i = 0; i < n; i++) {
    const slot = deviceSlotOfTrack[cols.track[i]!] ?? -1;
    if (slot < 0) {
      continue;
    }
    const start = cols.startNs[i]!;
    const end = cols.endNs[i]!;
    if (end < fromNs || start > toNs) {
      continue;
    }
    const kind = cols.kind[i]!;
    if (occupiesStream(kind)) {
      gpuOpCount++;
    }
    const engine = engineOfKind(kind);
    if (engine === noEngine) {
      continue;
    }
    engineOf[i] = engine;
    counts[slot * engineCount + engine]!++;
    gpuFrom = Math.min(gpuFrom, Math.max(start, fromNs));
    gpuTo = Math.max(gpuTo, Math.min(end, toNs));
  }

  const links = linkApiCalls(trace, cols);
  const nameFlags = nameFlagsOf(trace.strings);
  const hostRanges = new HostRanges(trace);
  const kernelClassOf = classifyKernels(trace, cols, engineOf, links.apiOf, hostRanges);
  const span: Span = { fromNs, toNs };
  const classes = classUnionsBySlot(
    cols,
    engineOf,
    kernelClassOf,
    deviceSlotOfTrack,
    deviceIds.length,
    span,
  );
  const devices = deviceIds.map((deviceId, slot) =>
    buildDeviceUnions(
      cols,
      engineOf,
      deviceSlotOfTrack,
      counts,
      slot,
      deviceId,
      span,
      classes[slot]!,
    ),
  );
  // The waits' records by wait op, behind one bit an op: most ops asked about are not waits,
  // and the bit answers them without a hash lookup (the gap walks ask for every gap).
  const recordByWait = new IdNumberMap();
  const isWait = new Uint32Array((n + 31) >>> 5);
  const flows = trace.flows.columns();
  for (let f = 0; f < flows.count; f++) {
    if (flows.kind[f] === FlowKind.EventRecordToWait) {
      const to = flows.toOp[f]!;
      if (to < n) {
        recordByWait.set(to, flows.fromOp[f]!);
        isWait[to >>> 5] = isWait[to >>> 5]! | (1 << (to & 31));
      }
    }
  }
  const recordOfWait = (op: number): number =>
    ((isWait[op >>> 5]! >>> (op & 31)) & 1) === 0 ? -1 : recordByWait.get(op)!;
  const empty = gpuFrom > gpuTo;
  const effectiveWindow = {
    fromNs: window?.fromNs ?? (empty ? 0 : gpuFrom),
    toNs: window?.toNs ?? (empty ? 0 : gpuTo),
  };
  return {
    trace,
    cols,
    options: { ...defaultAnalysisOptions, ...options },
    window: effectiveWindow,
    requested: { fromNs, toNs },
    deviceSlotOfTrack,
    devices,
    tracksOfDevice,
    engineOf,
    kernelClassOf,
    apiOf: links.apiOf,
    gpuOfApi: links.gpuOfApi,
    recordOfWait,
    nameFlags,
    blockingOf: blockingEnqueues(cols, nameFlags, links.apiOf),
    walk: gatherTrackWalk(trace, cols, links.apiOf, effectiveWindow),
    hostRanges,
    gpuFromNs: empty ? 0 : gpuFrom,
    gpuToNs: empty ? 0 : gpuTo,
    gpuOpCount,
  };
}

interface Span {
  readonly fromNs: number;
  readonly toNs: number;
}

function buildDeviceUnions(
  cols: OpColumns,
  engineOf: Uint8Array,
  deviceSlotOfTrack: Int32Array,
  counts: Int32Array,
  slot: number,
  deviceId: number,
  { fromNs, toNs }: Span,
  classes: readonly (IntervalList | undefined)[],
): DeviceUnions {
  const starts: Float64Array[] = [];
  const ends: Float64Array[] = [];
  for (let e = 0; e < engineCount; e++) {
    const c = counts[slot * engineCount + e]!;
    starts.push(new Float64Array(c));
    ends.push(new Float64Array(c));
  }
  const fill = new Int32Array(engineCount);
  for (let i = 0; i < cols.count; i++) {
    const e = engineOf[i]!;
    if (e === noEngine || deviceSlotOfTrack[cols.track[i]!] !== slot) {
      continue;
    }
    const k = fill[e]!++;
    starts[e]![k] = Math.max(cols.startNs[i]!, fromNs);
    ends[e]![k] = Math.min(cols.endNs[i]!, toNs);
  }
  // Sort each engine's columns once; unions across engines merge them (linear, no re-sort).
  for (let e = 0; e < engineCount; e++) {
    sortIfNeeded(starts[e]!);
    sortIfNeeded(ends[e]!);
  }
  const byEngine = starts.map((s, e) => unionOfSorted(s, ends[e]!));
  const copyStarts = mergeSorted(starts.filter((_, e) => isCopyEngine(e)));
  const copyEnds = mergeSorted(ends.filter((_, e) => isCopyEngine(e)));
  const allStarts = mergeSorted([copyStarts, starts[0]!, starts[Engine.Memset]!]);
  const allEnds = mergeSorted([copyEnds, ends[0]!, ends[Engine.Memset]!]);
  return {
    deviceId,
    byEngine,
    sortedStarts: starts,
    sortedEnds: ends,
    copySortedStarts: copyStarts,
    copySortedEnds: copyEnds,
    copies: unionOfSorted(copyStarts, copyEnds),
    kernels: byEngine[0]!,
    compute: classes[KernelClass.Compute] ?? byEngine[0]!,
    communication: classes[KernelClass.Communication] ?? emptyList,
    memoryKernels: classes[KernelClass.Memory] ?? emptyList,
    all: unionOfSorted(allStarts, allEnds),
  };
}

const emptyList: IntervalList = {
  starts: new Float64Array(0),
  ends: new Float64Array(0),
  count: 0,
};

/**
 * Per device slot, unions of its kernels per class; an empty list per slot when every kernel is
 * compute (the caller reuses the engine's union then), which one scan of the classes tells.
 */
function classUnionsBySlot(
  cols: OpColumns,
  engineOf: Uint8Array,
  kernelClassOf: Uint8Array,
  deviceSlotOfTrack: Int32Array,
  slotCount: number,
  { fromNs, toNs }: Span,
): (IntervalList | undefined)[][] {
  const out: (IntervalList | undefined)[][] = Array.from({ length: slotCount }, () => []);
  let mixed = false;
  for (let i = 0; i < cols.count && !mixed; i++) {
    mixed =
      kernelClassOf[i] === KernelClass.Communication || kernelClassOf[i] === KernelClass.Memory;
  }
  if (!mixed) {
    return out;
  }
  const counts = new Int32Array(slotCount * kernelClassCount);
  for (let i = 0; i < cols.count; i++) {
    const slot = deviceSlotOfTrack[cols.track[i]!]!;
    if (engineOf[i] === Engine.Compute && slot >= 0) {
      counts[slot * kernelClassCount + kernelClassOf[i]!]!++;
    }
  }
  const starts = Array.from(counts, (c) => new Float64Array(c));
  const ends = Array.from(counts, (c) => new Float64Array(c));
  const fill = new Int32Array(counts.length);
  for (let i = 0; i < cols.count; i++) {
    const slot = deviceSlotOfTrack[cols.track[i]!]!;
    if (engineOf[i] === Engine.Compute && slot >= 0) {
      const at = slot * kernelClassCount + kernelClassOf[i]!;
      const k = fill[at]!++;
      starts[at]![k] = Math.max(cols.startNs[i]!, fromNs);
      ends[at]![k] = Math.min(cols.endNs[i]!, toNs);
    }
  }
  for (let slot = 0; slot < slotCount; slot++) {
    for (let c = 0; c < kernelClassCount; c++) {
      const at = slot * kernelClassCount + c;
      out[slot]!.push(
        counts[at]! > 0 ? unionInPlace(starts[at]!, ends[at]!) : c === 0 ? emptyList : undefined,
      );
    }
  }
  return out;
}
