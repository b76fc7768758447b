import { MemKind, OpFlag, OpKind, RangeKind, noRef, packMemKinds } from '@streamscope/trace';
import type { LaunchTable } from '@streamscope/trace';
import { ImportError } from '../import-error.ts';
import type { StagedOp } from '../op-staging.ts';
import { newStagedOp } from '../op-staging.ts';
import type { TraceBuilder } from '../trace-builder.ts';
import { copyKindLabel, copyOpKind, isCudaApiClass, noId32, nsysMemKind } from './nsys-enums.ts';
import { GlobalIdMemo } from './global-id-memo.ts';
import type { NsysRecord } from './nsys-record.ts';
import { F, fieldNames } from './nsys-record.ts';
import { executableName } from './process-name.ts';
import {
  SyncType,
  syncNames,
  syncOpKind,
  syncTypeFromCupti,
  syncTypeFromName,
} from './sync-kinds.ts';

const maxTimeNs = 2 ** 53;
const latin1 = new TextDecoder('latin1');

/** Turns nsys JSON events (one `NsysRecord` each) into builder ops, lanes and ranges. */
export class NsysEventSink {
  private readonly op: StagedOp = newStagedOp();
  private readonly procs = new GlobalIdMemo((globalPid) => {
    const { key, pid } = splitGlobalId(globalPid);
    return this.builder.lanes.processFor(key, pid);
  });
  private readonly hostLanes = new GlobalIdMemo((globalTid) => {
    const { key, pid, tid } = splitGlobalId(globalTid);
    return this.builder.lanes.hostLane(this.builder.lanes.processFor(key, pid), tid);
  });
  private readonly processNames = new Map<string, string>();
  private readonly domainNames = new Map<number, number>();
  private readonly nameIds = new Map<string, number>();
  private lastLaunch = new Float64Array(8).fill(-1);
  private lastLaunchId = 0;
  private readonly lastGpuLane = new Float64Array(5).fill(-1);
  line = 0;

  constructor(
    private readonly builder: TraceBuilder,
    private readonly launches: LaunchTable,
    private readonly file: string,
  ) {}

  handle(type: number, rec: NsysRecord): void {
    switch (type) {
      case 79:
      case 80:
      case 106:
      case 127:
      case 130:
        this.gpuEvent(rec);
        return;
      case 48:
        this.apiCall(rec);
        return;
      case 59:
      case 60:
      case 34:
        this.nvtx(type, rec);
        return;
      case 75:
        this.domain(rec);
        return;
      case 27:
        this.command(rec);
        return;
      default:
        // Sampling, scheduling, diagnostics, profiler markers and the like: not trace data here.
        return;
    }
  }

  /** Process names from CommEvents, applied to the processes that have lanes. */
  finish(): void {
    for (const [key, name] of this.processNames) {
      const proc = this.builder.lanes.hasProcess(key);
      if (proc !== undefined) {
        this.builder.lanes.nameProcess(proc, name);
      }
    }
  }

  threadName(globalTid: number | bigint, nameIndex: number): void {
    const { key, pid, tid } = splitGlobalId(globalTid);
    const proc = this.builder.lanes.processFor(key, pid);
    this.builder.lanes.nameThread(proc, tid, this.builder.sourceName(nameIndex));
  }

  private gpuEvent(rec: NsysRecord): void {
    const op = this.op;
    const sub = rec.sub;
    op.startNs = this.time(rec, F.startNs);
    op.endNs = this.time(rec, F.endNs);
    op.proc = this.globalIdOf(rec, F.globalPid, this.procs);
    const deviceId = rec.get(F.deviceId);
    const contextId = rec.get(F.contextId);
    const streamId = rec.get(F.streamId);
    op.lane = this.gpuLane(op.proc, deviceId, contextId, streamId);
    op.correlationId = rec.get(F.correlationId);
    op.bytes = 0;
    op.memKinds = 0;
    op.refId = noRef;
    op.flags = 0;
    op.eventId = Number.NaN;
    op.eventSyncId = Number.NaN;
    if (sub === F.kernel || sub === F.memcpy || sub === F.memset) {
      // These rows' deviceId is their context's device; sync rows carry 0 whatever the context
      // (CUPTI's sync record has no device), so their lanes take the device by context.
      this.builder.lanes.vouchDevice(op.lane);
    }
    if (sub === F.kernel) {
      op.kind = OpKind.Kernel;
      const nameField = rec.has(F.demangledName) ? F.demangledName : F.shortName;
      op.nameRef = rec.has(nameField)
        ? this.builder.sourceName(rec.get(nameField))
        : this.literal('kernel');
      op.refId = this.launch(rec);
      if (rec.get(F.graphNodeId) !== 0) {
        op.flags = OpFlag.InGraph; // --cuda-graph-trace=node: a node of a graph launch
      }
    } else if (sub === F.memcpy) {
      const kind = copyOpKind(rec.get(F.copyKind));
      op.kind = kind < 0 ? OpKind.CopyDtoD : kind;
      if (kind < 0) {
        this.builder.warnings.add(
          'copies of unknown kind drawn as device-to-device',
          `line ${this.line}`,
        );
      }
      op.bytes = this.size(rec, F.sizebytes);
      op.memKinds = packMemKinds(
        nsysMemKind(rec.get(F.srcKind, 7)),
        nsysMemKind(rec.get(F.dstKind, 7)),
      );
      op.nameRef = this.literal(copyKindLabel[op.kind] ?? 'Memcpy');
    } else if (sub === F.memset) {
      op.kind = OpKind.Memset;
      op.bytes = this.size(rec, F.sizebytes);
      op.memKinds = packMemKinds(MemKind.Unknown, nsysMemKind(rec.get(F.memKind, 7)));
      op.nameRef = this.literal('Memset');
    } else if (sub === F.sync) {
      const eventId = rec.get(F.eventId, noId32);
      op.kind = syncOpKind(this.syncType(rec), streamId, eventId);
      op.nameRef = this.literal(syncNames[op.kind] ?? 'Synchronize');
      if (eventId !== noId32) {
        op.eventId = eventId;
        op.eventSyncId = rec.get(F.eventSyncId, Number.NaN);
        op.refId = eventId;
      }
      if (streamId === noId32) {
        op.lane = this.builder.lanes.gpuLane(op.proc, deviceId, contextId, noId32);
        this.builder.lanes.nameLane(op.lane, `Context ${contextId} sync`);
      }
    } else if (sub === F.cudaEventRecord) {
      op.kind = OpKind.EventRecord;
      op.eventId = rec.get(F.eventId, Number.NaN);
      op.eventSyncId = rec.get(F.eventSyncId, Number.NaN);
      op.refId = Number.isNaN(op.eventId) ? noRef : op.eventId;
      op.nameRef = this.literal('Event record');
    } else if (sub === F.graph) {
      op.kind = OpKind.GraphLaunch;
      const graphId = rec.get(F.graphId);
      op.refId = graphId;
      op.nameRef = this.literal(`CUDA graph ${graphId}`);
    } else {
      this.builder.warnings.add('CUDA events of an unknown kind skipped', `line ${this.line}`);
      return;
    }
    this.builder.addOp(op);
  }

  private apiCall(rec: NsysRecord): void {
    if (!isCudaApiClass(rec.get(F.eventClass, -1))) {
      return; // profiler overhead, OS runtime, graph creation markers
    }
    const op = this.op;
    op.kind = OpKind.ApiCall;
    op.startNs = this.time(rec, F.startNs);
    op.endNs = this.time(rec, F.endNs);
    op.lane = this.globalIdOf(rec, F.globalTid, this.hostLanes);
    op.proc = this.builder.lanes.laneProc(op.lane);
    op.nameRef = rec.has(F.name)
      ? this.builder.sourceName(rec.get(F.name))
      : this.literal('CUDA API');
    op.correlationId = rec.get(F.correlationId);
    op.bytes = 0;
    op.memKinds = 0;
    op.refId = noRef;
    op.flags = 0;
    op.eventId = Number.NaN;
    op.eventSyncId = Number.NaN;
    this.builder.addOp(op);
  }

  private nvtx(type: number, rec: NsysRecord): void {
    const startNs = this.time(rec, F.Timestamp);
    const endNs = rec.has(F.EndTimestamp) ? this.time(rec, F.EndTimestamp) : -1;
    const lane = this.globalIdOf(rec, F.GlobalTid, this.hostLanes);
    const nameRef = this.textRef(rec);
    const domainId = rec.get(F.DomainId);
    const domainRef =
      domainId === 0 ? 0 : (this.domainNames.get(domainId) ?? this.literal(`domain ${domainId}`));
    const kind =
      type === 59 ? RangeKind.PushPop : type === 60 ? RangeKind.StartEnd : RangeKind.Mark;
    this.builder.addRange(
      lane,
      startNs,
      kind === RangeKind.Mark ? startNs : endNs,
      nameRef,
      domainRef,
      kind,
    );
  }

  private domain(rec: NsysRecord): void {
    this.domainNames.set(rec.get(F.DomainId), this.textRef(rec));
  }

  private command(rec: NsysRecord): void {
    // Commname is the kernel's short name, never with arguments but with slashes at times
    // ("kworker/0:1"); Command can be a whole command line: only its executable is kept.
    const command = this.string(rec, F.Command);
    const name =
      this.string(rec, F.Commname) ?? (command === undefined ? undefined : executableName(command));
    if (name !== undefined && rec.has(F.GlobalPid)) {
      this.processNames.set(splitGlobalId(globalIdValue(rec, F.GlobalPid)).key, name);
    }
  }

  private textRef(rec: NsysRecord): number {
    const text = this.string(rec, F.Text);
    if (text !== undefined) {
      return this.builder.name(text);
    }
    return rec.has(F.TextId) ? this.builder.sourceName(rec.get(F.TextId)) : 0;
  }

  /** The sync type by its name (as nsys JSON writes it) or by CUPTI's number. */
  private syncType(rec: NsysRecord): number {
    if (!rec.has(F.syncType)) {
      return SyncType.Unknown;
    }
    const value = rec.num[F.syncType]!;
    const name = Number.isNaN(value) ? (this.string(rec, F.syncType) ?? '') : undefined;
    const type = name === undefined ? syncTypeFromCupti(value) : syncTypeFromName(name);
    if (type === undefined) {
      this.builder.warnings.add(
        'synchronizations of a type CUPTI does not define were classified by their stream and event ids',
        `line ${this.line}: syncType ${name === undefined ? value : JSON.stringify(name)}`,
      );
    }
    return type ?? SyncType.Unknown;
  }

  private string(rec: NsysRecord, field: number): string | undefined {
    if (!rec.has(field)) {
      return undefined;
    }
    const text = rec.textOf(field);
    if (text !== undefined) {
      return text;
    }
    if (!rec.hasRange(field)) {
      return String(rec.num[field]);
    }
    // The fast path only keeps ASCII strings without escapes, so latin1 decodes them exactly.
    return latin1.decode(rec.bytes.subarray(rec.strStart[field], rec.strEnd[field]));
  }

  private time(rec: NsysRecord, field: number): number {
    if (!rec.has(field)) {
      throw this.error(field, 'is missing');
    }
    const value = rec.num[field]!;
    if (!Number.isInteger(value) || value < 0 || value >= maxTimeNs) {
      throw this.error(
        field,
        `must be a time in ns in [0, 2^53), got ${rec.bigOf(field) ?? this.string(rec, field) ?? value}`,
      );
    }
    return value;
  }

  private size(rec: NsysRecord, field: number): number {
    const value = rec.get(field);
    if (!Number.isInteger(value) || value < 0 || value >= maxTimeNs) {
      throw this.error(
        field,
        `must be a byte count in [0, 2^53), got ${rec.bigOf(field) ?? value}`,
      );
    }
    return value;
  }

  private error(field: number, problem: string): ImportError {
    return new ImportError(
      { file: this.file, line: this.line, field: fieldNames[field] },
      `${fieldNames[field]} ${problem}`,
    );
  }

  /** A global pid or tid field, resolved through its memo. */
  private globalIdOf(rec: NsysRecord, field: number, memo: GlobalIdMemo): number {
    if (!rec.has(field)) {
      throw this.error(field, 'is missing');
    }
    return memo.indexOf(rec.num[field]!, rec.bigOf(field));
  }

  /** Lane of a GPU stream; consecutive ops mostly share one, so the last is cached. */
  private gpuLane(proc: number, deviceId: number, contextId: number, streamId: number): number {
    const last = this.lastGpuLane;
    if (last[0] === proc && last[1] === deviceId && last[2] === contextId && last[3] === streamId) {
      return last[4]!;
    }
    const lane = this.builder.lanes.gpuLane(proc, deviceId, contextId, streamId);
    last[0] = proc;
    last[1] = deviceId;
    last[2] = contextId;
    last[3] = streamId;
    last[4] = lane;
    return lane;
  }

  private literal(name: string): number {
    let id = this.nameIds.get(name);
    if (id === undefined) {
      id = this.builder.name(name);
      this.nameIds.set(name, id);
    }
    return id;
  }

  /** Launch config id; consecutive kernels mostly share one, so the last is cached. */
  private launch(rec: NsysRecord): number {
    const last = this.lastLaunch;
    const gx = rec.get(F.gridX);
    const gy = rec.get(F.gridY);
    const gz = rec.get(F.gridZ);
    const bx = rec.get(F.blockX);
    const by = rec.get(F.blockY);
    const bz = rec.get(F.blockZ);
    const smem = rec.get(F.staticSharedMemory) + rec.get(F.dynamicSharedMemory);
    const regs = rec.get(F.registersPerThread);
    if (
      last[0] === gx &&
      last[1] === gy &&
      last[2] === gz &&
      last[3] === bx &&
      last[4] === by &&
      last[5] === bz &&
      last[6] === smem &&
      last[7] === regs
    ) {
      return this.lastLaunchId;
    }
    last[0] = gx;
    last[1] = gy;
    last[2] = gz;
    last[3] = bx;
    last[4] = by;
    last[5] = bz;
    last[6] = smem;
    last[7] = regs;
    this.lastLaunchId = this.launches.internFields(gx, gy, gz, bx, by, bz, smem, regs);
    return this.lastLaunchId;
  }
}

/** The exact id of a global pid/tid field (a number below 2^53, else the decimal text). */
export function globalIdValue(rec: NsysRecord, field: number): number | bigint {
  const big = rec.bigOf(field);
  return big === undefined ? rec.num[field]! : BigInt(big);
}

/**
 * nsys global ids pack a VM/host id (bits 48+), the pid (bits 24–47) and the tid (bits 0–23).
 * The process key keeps VM and pid, so two hosts' pid 1234 stay apart.
 */
export function splitGlobalId(id: number | bigint): { key: string; pid: number; tid: number } {
  if (typeof id === 'bigint') {
    const pid = Number((id >> 24n) & 0xffffffn);
    return { key: `${id >> 48n}:${pid}`, pid, tid: Number(id & 0xffffffn) };
  }
  const pid = Math.floor(id / 2 ** 24) % 2 ** 24;
  return { key: `${Math.floor(id / 2 ** 48)}:${pid}`, pid, tid: id % 2 ** 24 };
}
