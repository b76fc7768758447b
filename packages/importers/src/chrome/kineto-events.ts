import type { LaunchTable } from '@streamscope/trace';
import { MemKind, OpKind, RangeKind, noRef, packMemKinds } from '@streamscope/trace';
import { ImportError } from '../import-error.ts';
import type { StagedOp } from '../op-staging.ts';
import { newStagedOp } from '../op-staging.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import { noId32 } from '../nsys/nsys-enums.ts';

type Json = Record<string, unknown>;

/** Kineto categories, current and 2021-era (PyTorch 1.8–1.9) spellings. */
const gpuCategories = new Set([
  'kernel',
  'Kernel',
  'gpu_memcpy',
  'Memcpy',
  'gpu_memset',
  'Memset',
  'cuda_sync',
]);
const apiCategories = new Set(['cuda_runtime', 'cuda_driver', 'Runtime', 'Driver']);
const rangeCategories = new Set(['cpu_op', 'Operator', 'user_annotation']);

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

/** Largest µs timestamp whose ns value is still an exact double integer. */
const maxTsUs = 2 ** 53 / 1000;

/**
 * Turns PyTorch profiler (kineto) Chrome trace events into builder ops: GPU work on lanes keyed
 * by (process, device, context, stream), CUDA API calls on host threads, CPU ops and
 * user annotations as nested ranges. API→GPU links come from `args.correlation`.
 */
export class KinetoEventSink {
  private readonly op: StagedOp = newStagedOp();
  private readonly mainProc: number;
  private mainPid: number | undefined;
  private readonly names = new Map<string, number>();
  private readonly processNames = new Map<number, string>();
  skipped = 0;
  sawLegacy = false;
  sawOld = false;

  constructor(
    private readonly builder: TraceBuilder,
    private readonly launches: LaunchTable,
    private readonly file: string,
  ) {
    this.mainProc = builder.lanes.processFor('kineto-main', 0);
  }

  event(e: unknown, index: number): void {
    if (!isObject(e)) {
      throw new ImportError(
        { file: this.file, path: `traceEvents[${index}]` },
        'an event must be an object',
      );
    }
    const ph = e['ph'];
    if (ph === 'M') {
      this.metadata(e);
      return;
    }
    if (ph !== 'X') {
      return; // flows (ac2g: we join by correlation id instead), instants, counters
    }
    const cat = typeof e['cat'] === 'string' ? e['cat'] : '';
    if (cat === 'Kernel' || cat === 'Runtime' || cat === 'Operator') {
      this.sawOld = true;
    }
    if (e['pid'] === 'CPU functions' || e['pid'] === 'CUDA functions') {
      this.sawLegacy = true;
      this.skipped++;
      return;
    }
    if (gpuCategories.has(cat)) {
      this.gpuOp(e, cat, index);
    } else if (apiCategories.has(cat)) {
      this.apiCall(e, index);
    } else if (rangeCategories.has(cat)) {
      this.range(e, cat, index);
    }
  }

  finish(): void {
    for (const [pid, name] of this.processNames) {
      const proc =
        pid === this.mainPid ? this.mainProc : this.builder.lanes.hasProcess(`pid:${pid}`);
      if (proc !== undefined) {
        this.builder.lanes.nameProcess(proc, name);
      }
    }
  }

  topValue(key: string, value: unknown): void {
    if (key !== 'deviceProperties' || !Array.isArray(value)) {
      return;
    }
    for (const device of value) {
      if (!isObject(device) || typeof device['id'] !== 'number') {
        continue;
      }
      const num = (k: string): number | undefined =>
        typeof device[k] === 'number' ? device[k] : undefined;
      const sm = num('numSms');
      const memory = num('totalGlobalMem');
      const major = num('computeMajor');
      this.builder.addDevice({
        deviceId: device['id'],
        name: typeof device['name'] === 'string' ? device['name'] : `GPU ${device['id']}`,
        ...(sm === undefined ? {} : { smCount: sm }),
        ...(memory === undefined ? {} : { memoryBytes: memory }),
        ...(major === undefined
          ? {}
          : { computeCapability: `${major}.${num('computeMinor') ?? 0}` }),
      });
    }
  }

  private metadata(e: Json): void {
    const args = isObject(e['args']) ? e['args'] : {};
    const name = typeof args['name'] === 'string' ? args['name'] : undefined;
    const pid = e['pid'];
    if (name === undefined || typeof pid !== 'number') {
      return;
    }
    if (e['name'] === 'process_name') {
      this.processNames.set(pid, name);
    } else if (
      e['name'] === 'thread_name' &&
      typeof e['tid'] === 'number' &&
      pid === this.mainPid
    ) {
      this.builder.lanes.nameThread(this.mainProc, e['tid'], this.builder.name(name));
    }
  }

  private gpuOp(e: Json, cat: string, index: number): void {
    const args = isObject(e['args']) ? e['args'] : {};
    const op = this.reset();
    op.startNs = this.ts(e, index);
    op.endNs = op.startNs + this.dur(e, index);
    op.proc = this.mainProc;
    const deviceId = intOr(args['device'], intOr(e['pid'], 0));
    const streamId = intOr(args['stream'], streamFromTid(e['tid']));
    const contextId = intOr(args['context'], 0);
    op.lane = this.builder.lanes.gpuLane(
      op.proc,
      deviceId,
      contextId,
      streamId < 0 ? noId32 : streamId,
    );
    if (streamId < 0) {
      this.builder.lanes.nameLane(op.lane, `Context ${contextId} sync`);
    }
    op.correlationId = intOr(args['correlation'], 0);
    const name = typeof e['name'] === 'string' ? e['name'] : cat;
    op.nameRef = this.name(name);
    if (cat === 'kernel' || cat === 'Kernel') {
      op.kind = OpKind.Kernel;
      const grid = triple(args['grid']);
      const block = triple(args['block']);
      op.refId = this.launches.intern({
        gridX: grid[0],
        gridY: grid[1],
        gridZ: grid[2],
        blockX: block[0],
        blockY: block[1],
        blockZ: block[2],
        sharedMemBytes: intOr(args['shared memory'], 0),
        registersPerThread: intOr(args['registers per thread'], 0),
      });
    } else if (cat === 'gpu_memcpy' || cat === 'Memcpy') {
      op.kind = copyKindFromName(name);
      op.bytes = Math.max(0, intOr(args['bytes'], 0));
      op.memKinds = memKindsFromName(name);
    } else if (cat === 'gpu_memset' || cat === 'Memset') {
      op.kind = OpKind.Memset;
      op.bytes = Math.max(0, intOr(args['bytes'], 0));
      op.memKinds = memKindsFromName(name);
    } else {
      op.kind = syncKindByName[name] ?? OpKind.StreamSync;
    }
    const at = this.builder.addOp(op);
    const recordCorr = intOr(args['wait_on_cuda_event_record_corr_id'], 0);
    if (recordCorr > 0) {
      this.builder.waitsOnRecordCall(at, recordCorr);
    }
  }

  private apiCall(e: Json, index: number): void {
    const args = isObject(e['args']) ? e['args'] : {};
    const op = this.reset();
    op.kind = OpKind.ApiCall;
    op.startNs = this.ts(e, index);
    op.endNs = op.startNs + this.dur(e, index);
    op.proc = this.procOf(e['pid']);
    op.lane = this.builder.lanes.hostLane(op.proc, intOr(e['tid'], 0));
    op.correlationId = intOr(args['correlation'], 0);
    op.nameRef = this.name(typeof e['name'] === 'string' ? e['name'] : 'CUDA API');
    this.builder.addOp(op);
  }

  private range(e: Json, cat: string, index: number): void {
    const startNs = this.ts(e, index);
    const endNs = startNs + this.dur(e, index);
    const lane = this.builder.lanes.hostLane(this.procOf(e['pid']), intOr(e['tid'], 0));
    const name = this.name(typeof e['name'] === 'string' ? e['name'] : cat);
    this.builder.addRange(lane, startNs, endNs, name, this.name(cat), RangeKind.PushPop);
  }

  private procOf(pid: unknown): number {
    const value = intOr(pid, 0);
    if (this.mainPid === undefined) {
      this.mainPid = value;
      this.builder.lanes.setProcessPid(this.mainProc, value);
    }
    return value === this.mainPid
      ? this.mainProc
      : this.builder.lanes.processFor(`pid:${value}`, value);
  }

  /** µs (integer or with three decimals) → integer ns. */
  private ts(e: Json, index: number): number {
    const ts = typeof e['ts'] === 'string' ? Number(e['ts']) : e['ts'];
    if (typeof ts !== 'number' || !Number.isFinite(ts) || ts < 0 || ts >= maxTsUs) {
      throw new ImportError(
        { file: this.file, path: `traceEvents[${index}].ts` },
        `ts must be a time in µs in [0, 2^53 ns), got ${JSON.stringify(e['ts'])}`,
      );
    }
    return Math.round(ts * 1000);
  }

  private dur(e: Json, index: number): number {
    const dur = typeof e['dur'] === 'string' ? Number(e['dur']) : (e['dur'] ?? 0);
    if (typeof dur !== 'number' || !Number.isFinite(dur) || dur >= maxTsUs) {
      throw new ImportError(
        { file: this.file, path: `traceEvents[${index}].dur` },
        `dur must be a duration in µs, got ${JSON.stringify(e['dur'])}`,
      );
    }
    if (dur < 0) {
      this.builder.warnings.add(
        'events with a negative duration drawn as instants',
        `traceEvents[${index}]`,
      );
      return 0;
    }
    return Math.round(dur * 1000);
  }

  private name(value: string): number {
    let id = this.names.get(value);
    if (id === undefined) {
      id = this.builder.name(value);
      this.names.set(value, id);
    }
    return id;
  }

  private reset(): StagedOp {
    const op = this.op;
    op.bytes = 0;
    op.memKinds = 0;
    op.refId = noRef;
    op.flags = 0;
    op.eventId = Number.NaN;
    op.eventSyncId = Number.NaN;
    return op;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function intOr(value: unknown, fallback: number): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : fallback;
}

/** GPU tid: the stream id, or "stream 7" in 2021-era traces. */
function streamFromTid(tid: unknown): number {
  if (typeof tid === 'string') {
    const match = /(-?\d+)\s*$/.exec(tid);
    return match === null ? 0 : Number(match[1]);
  }
  return intOr(tid, 0);
}

function triple(value: unknown): [number, number, number] {
  const a = Array.isArray(value) ? value : [];
  return [intOr(a[0], 0), intOr(a[1], 0), intOr(a[2], 0)];
}

/** "Memcpy HtoD (Pinned -> Device)" → the copy kind. */
function copyKindFromName(name: string): number {
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
function memKindsFromName(name: string): number {
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
