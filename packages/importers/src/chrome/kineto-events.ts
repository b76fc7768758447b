import type { LaunchTable } from '@streamscope/trace';
import { MemKind, OpKind, RangeKind, packMemKinds } from '@streamscope/trace';
import type { StagedOp } from '../op-staging.ts';
import { clearStagedOp, newStagedOp } from '../op-staging.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import { noId32 } from '../nsys/nsys-enums.ts';
import type { ChromeEvent, IdValue } from './chrome-event.ts';
import type { ChromeMetadata } from './chrome-metadata.ts';
import { idKey, intOr } from './chrome-metadata.ts';
import type { EventTimes } from './event-times.ts';
import { maxEntries } from './byte-strings.ts';
import { KinetoLinks } from './kineto-links.ts';
import { unnamedByProfiler, unnamedCallName } from './unnamed-calls.ts';

/** What a kineto category is, as bits: 0 for a category the kineto mapping does not read. */
export const enum CategoryBits {
  Gpu = 1,
  Api = 2,
  Range = 4,
  /** A 2021-era (PyTorch 1.8–1.9) spelling. */
  Old = 8,
}

/** Kineto categories, current and 2021-era spellings. */
const categoryBits = new Map<string, number>([
  ['kernel', CategoryBits.Gpu],
  ['Kernel', CategoryBits.Gpu | CategoryBits.Old],
  ['gpu_memcpy', CategoryBits.Gpu],
  ['Memcpy', CategoryBits.Gpu],
  ['gpu_memset', CategoryBits.Gpu],
  ['Memset', CategoryBits.Gpu],
  ['cuda_sync', CategoryBits.Gpu],
  ['cuda_runtime', CategoryBits.Api],
  ['cuda_driver', CategoryBits.Api],
  ['Runtime', CategoryBits.Api | CategoryBits.Old],
  ['Driver', CategoryBits.Api],
  ['cpu_op', CategoryBits.Range],
  ['Operator', CategoryBits.Range | CategoryBits.Old],
  ['user_annotation', CategoryBits.Range],
  ['python_function', CategoryBits.Range],
]);

/** The category's CategoryBits; 0 when the kineto mapping does not read it (any other category). */
export function kinetoCategory(cat: string): number {
  return categoryBits.get(cat) ?? 0;
}

const memKindByName: Record<string, MemKind> = {
  Pageable: MemKind.Pageable,
  Pinned: MemKind.Pinned,
  Device: MemKind.Device,
  Array: MemKind.Array,
  Managed: MemKind.Managed,
};

const syncKindByName: Record<string, number> = {
  'Event Sync': OpKind.EventSync,
  'Stream Wait Event': OpKind.StreamWait,
  'Context Sync': OpKind.DeviceSync,
  'Stream Sync': OpKind.StreamSync,
};

interface HostThread {
  readonly proc: number;
  readonly tid: number;
  readonly pidKey: string;
  readonly tidKey: string;
}

/**
 * Turns PyTorch profiler (kineto) events into builder ops: GPU work on lanes keyed by (owning
 * process, device, context, stream), CUDA/HIP API calls on host threads, CPU ops and user
 * annotations as nested ranges. API→GPU links come from `args.correlation` (see KinetoLinks).
 */
export class KinetoEvents {
  private readonly op: StagedOp = newStagedOp();
  /** GPU ops start here and move to their owner once every API call is known. */
  private readonly firstProc: number;
  private firstPid: number | undefined;
  private readonly links = new KinetoLinks(() => this.builder.opRoom);
  private readonly gpuKeys = new Map<string, number>();
  private readonly hostProcs = new Map<string, number>();
  private readonly hostThreads = new Map<string, HostThread>();
  private lastPid: IdValue = undefined;
  private lastTid: IdValue = undefined;
  private lastLane = -1;
  private lastGpuPid: IdValue = undefined;
  private lastGpuKey = -1;
  /** Name ids by the scanner's string entry (+1; 0 = not looked up yet). */
  private readonly refsByEntry = new Int32Array(maxEntries);
  private lastCat = '';
  private lastCatRef = -1;
  /** GPU ops added, streamless syncs included. */
  gpuOps = 0;
  kept = 0;
  sawOld = false;

  constructor(
    private readonly builder: TraceBuilder,
    private readonly launches: LaunchTable,
    private readonly name: (value: string) => number,
  ) {
    this.firstProc = builder.lanes.processFor('kineto-main', 0);
  }

  /**
   * One complete event of a kineto category, `bits` its `kinetoCategory`, its times already
   * read into `times`.
   */
  event(e: ChromeEvent, cat: string, bits: number, times: EventTimes): void {
    if ((bits & CategoryBits.Old) !== 0) {
      this.sawOld = true;
    }
    this.kept++;
    if ((bits & CategoryBits.Gpu) !== 0) {
      this.gpuOp(e, cat, times);
    } else if ((bits & CategoryBits.Api) !== 0) {
      this.apiCall(e, times);
    } else {
      const lane = this.hostLane(e);
      const startNs = times.startNs;
      this.builder.addRange(
        lane,
        startNs,
        startNs + times.durNs,
        this.nameRef(e, cat),
        this.catRef(cat),
        RangeKind.PushPop,
      );
    }
  }

  /** Joins GPU ops to their owners and names processes and threads from the metadata. */
  finish(meta: ChromeMetadata): void {
    const unplacedSyncs = this.links.resolve(this.builder, this.firstProc);
    if (unplacedSyncs > 0) {
      this.builder.warnings.add(
        `${unplacedSyncs} sync records with no stream (Event Sync, Context Sync) have no CUDA call to find their host thread by; drawn on a host row of their GPU`,
      );
    }
    for (const [pidKey, proc] of this.hostProcs) {
      this.builder.lanes.nameProcess(proc, meta.processName(pidKey) ?? '');
    }
    for (const thread of this.hostThreads.values()) {
      const name = meta.threadName(thread.pidKey, thread.tidKey);
      if (name !== undefined) {
        this.builder.lanes.nameThread(thread.proc, thread.tid, this.name(name));
      }
    }
  }

  private gpuOp(e: ChromeEvent, cat: string, times: EventTimes): void {
    const op = clearStagedOp(this.op);
    op.startNs = times.startNs;
    op.endNs = times.startNs + times.durNs;
    const deviceId = intOr(e.device, intOr(e.pid, 0));
    const streamId = intOr(e.stream, streamFromTid(e.tid));
    const contextId = intOr(e.context, 0);
    const corr = Math.max(0, intOr(e.correlation, 0));
    const name = e.name ?? cat;
    const gpuKey = this.gpuKey(e.pid);
    op.correlationId = corr;
    op.nameRef = this.nameRef(e, cat);
    let needsBytes = false;
    if (cat === 'kernel' || cat === 'Kernel') {
      op.kind = OpKind.Kernel;
      op.refId = this.launchConfig(e);
    } else if (
      cat === 'gpu_memcpy' ||
      cat === 'Memcpy' ||
      cat === 'gpu_memset' ||
      cat === 'Memset'
    ) {
      const isCopy = cat === 'gpu_memcpy' || cat === 'Memcpy';
      op.kind = isCopy ? copyKindFromName(name) : OpKind.Memset;
      op.memKinds = memKindsFromName(name);
      const bytes = intOr(e.bytesArg, -1);
      needsBytes = bytes < 0;
      op.bytes = Math.max(0, bytes);
    } else {
      op.kind = syncKindByName[name] ?? OpKind.StreamSync;
      const recordCorr = intOr(e.recordCorrelation, 0);
      if (streamId < 0) {
        // Not a stream's record: the host thread that called it waited (see KinetoLinks).
        this.links.addStreamlessSync({
          gpuKey,
          deviceId,
          correlationId: corr,
          startNs: op.startNs,
          endNs: op.endNs,
          nameRef: op.nameRef,
          kind: op.kind,
          recordCorrelationId: recordCorr,
        });
        this.gpuOps++;
        return;
      }
      op.proc = this.firstProc;
      op.lane = this.builder.lanes.gpuLane(op.proc, deviceId, contextId, streamId);
      const at = this.add(gpuKey, false);
      if (recordCorr > 0) {
        this.builder.waitsOnRecordCall(at, recordCorr);
      }
      return;
    }
    const laneStream = streamId < 0 ? noId32 : streamId;
    op.proc = this.firstProc;
    op.lane = this.builder.lanes.gpuLane(op.proc, deviceId, contextId, laneStream);
    this.add(gpuKey, needsBytes);
  }

  private add(gpuKey: number, needsBytes: boolean): number {
    const op = this.op;
    const at = this.builder.addOp(op);
    this.links.addGpuOp(at, gpuKey, needsBytes);
    this.gpuOps++;
    return at;
  }

  private apiCall(e: ChromeEvent, times: EventTimes): void {
    const op = clearStagedOp(this.op);
    op.kind = OpKind.ApiCall;
    op.startNs = times.startNs;
    op.endNs = times.startNs + times.durNs;
    op.lane = this.hostLane(e);
    op.proc = this.builder.lanes.laneProc(op.lane);
    op.correlationId = Math.max(0, intOr(e.correlation, 0));
    op.nameRef = this.nameRef(e, 'CUDA API');
    const at = this.builder.addOp(op);
    // ROCm writes a copy's size on its hipMemcpy* call (`"bytes": "4096"`), not on the copy.
    const bytes = intOr(e.bytesArg, -1);
    this.links.addApiCall(
      at,
      op.correlationId,
      bytes < 0 ? Number.NaN : bytes,
      // cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch (the name is interned: read already).
      e.name?.includes('GraphLaunch') === true,
    );
  }

  /**
   * The name id of the event's name, or of `fallback` without one. An API call that kineto could
   * not name is named by its callback id instead (see unnamedCallName): that name is never cached
   * by the scanner's entry, so such calls alone take the slower path, and every other event keeps
   * the cached one.
   */
  private nameRef(e: ChromeEvent, fallback: string): number {
    const name = e.name;
    if (name === undefined) {
      return this.name(fallback);
    }
    const entry = e.nameEntry;
    const cached = entry < 0 ? -1 : this.refsByEntry[entry]! - 1;
    if (cached >= 0) {
      return cached;
    }
    if (name === unnamedByProfiler && (kinetoCategory(e.cat ?? '') & CategoryBits.Api) !== 0) {
      return this.name(unnamedCallName(e));
    }
    const ref = this.name(name);
    if (entry >= 0 && name !== unnamedByProfiler) {
      this.refsByEntry[entry] = ref + 1;
    }
    return ref;
  }

  /** The name id of a category (they come in runs). */
  private catRef(cat: string): number {
    if (cat !== this.lastCat || this.lastCatRef < 0) {
      this.lastCat = cat;
      this.lastCatRef = this.name(cat);
    }
    return this.lastCatRef;
  }

  private hostLane(e: ChromeEvent): number {
    // Events come in runs on one thread: the last thread's lane is kept.
    if (e.pid === this.lastPid && e.tid === this.lastTid && this.lastLane >= 0) {
      return this.lastLane;
    }
    const pidKey = idKey(e.pid);
    const tidKey = idKey(e.tid);
    let proc = this.hostProcs.get(pidKey);
    if (proc === undefined) {
      const pid = intOr(e.pid, 0);
      if (this.firstPid === undefined) {
        this.firstPid = pid;
        this.builder.lanes.setProcessPid(this.firstProc, pid);
      }
      proc =
        pid === this.firstPid
          ? this.firstProc
          : this.builder.lanes.processFor(`kineto-pid:${pid}`, pid);
      this.hostProcs.set(pidKey, proc);
    }
    const key = `${pidKey}\u0000${tidKey}`;
    let thread = this.hostThreads.get(key);
    if (thread === undefined) {
      thread = { proc, tid: intOr(e.tid, 0), pidKey, tidKey };
      this.hostThreads.set(key, thread);
    }
    this.lastPid = e.pid;
    this.lastTid = e.tid;
    this.lastLane = this.builder.lanes.hostLane(proc, thread.tid);
    return this.lastLane;
  }

  private gpuKey(pid: IdValue): number {
    if (pid === this.lastGpuPid && this.lastGpuKey >= 0) {
      return this.lastGpuKey;
    }
    const pidKey = idKey(pid);
    let key = this.gpuKeys.get(pidKey);
    if (key === undefined) {
      key = this.gpuKeys.size;
      this.gpuKeys.set(pidKey, key);
    }
    this.lastGpuPid = pid;
    this.lastGpuKey = key;
    return key;
  }

  private launchConfig(e: ChromeEvent): number {
    return this.launches.internFields(
      intOr(e.gridX, 0),
      intOr(e.gridY, 0),
      intOr(e.gridZ, 0),
      intOr(e.blockX, 0),
      intOr(e.blockY, 0),
      intOr(e.blockZ, 0),
      intOr(e.sharedMemory, 0),
      intOr(e.registers, 0),
    );
  }
}

/** GPU tid: the stream id, or "stream 7" in 2021-era traces. */
function streamFromTid(tid: unknown): number {
  if (typeof tid === 'string') {
    const match = /(-?\d+)\s*$/.exec(tid);
    return match === null ? 0 : Number(match[1]);
  }
  return intOr(tid, 0);
}

/** "Memcpy HtoD (Pinned -> Device)" → the copy kind. */
export function copyKindFromName(name: string): number {
  if (name.includes('HtoD')) {
    return OpKind.CopyHtoD;
  }
  if (name.includes('DtoH')) {
    return OpKind.CopyDtoH;
  }
  if (name.includes('PtoP')) {
    return OpKind.CopyPtoP;
  }
  if (name.includes('HtoH')) {
    return OpKind.CopyHtoH;
  }
  return OpKind.CopyDtoD;
}

/** "(Pinned -> Device)" → packed memory kinds; "Memset (Device)" → destination only. */
export function memKindsFromName(name: string): number {
  const pair = /\((\w+) -> (\w+)\)/.exec(name);
  if (pair !== null) {
    return packMemKinds(
      memKindByName[pair[1]!] ?? MemKind.Unknown,
      memKindByName[pair[2]!] ?? MemKind.Unknown,
    );
  }
  const one = /\((\w+)\)/.exec(name);
  return one === null
    ? 0
    : packMemKinds(MemKind.Unknown, memKindByName[one[1]!] ?? MemKind.Unknown);
}
