import type { StreamType } from '@streamscope/trace';
import { FlowKind, MemKind, OpKind, RangeKind, Trace, packMemKinds } from '@streamscope/trace';

/** Host call that enqueued a GPU op: on `hostTrack`, from `startNs` to `endNs`. */
export interface ApiSpec {
  readonly hostTrack: number;
  readonly name: string;
  readonly startNs: number;
  readonly endNs: number;
}

export interface GpuOpSpec {
  readonly track: number;
  readonly kind: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly name?: string;
  readonly bytes?: number;
  readonly memKinds?: number;
  readonly flags?: number;
  readonly api?: ApiSpec;
}

export const pinnedToDevice = packMemKinds(MemKind.Pinned, MemKind.Device);
export const pageableToDevice = packMemKinds(MemKind.Pageable, MemKind.Device);
export const deviceToPinned = packMemKinds(MemKind.Device, MemKind.Pinned);

/**
 * Hand-built traces for tests: streams, host threads, GPU ops with their API calls (joined by
 * correlation id and an ApiToGpu flow, as importers and backends write them).
 */
export class TestTraceBuilder {
  readonly trace = new Trace({ title: 'test' });
  private nextCorrelation = 1;

  constructor(copyEngineCount = 2) {
    this.trace.addDevice({ deviceId: 0, name: 'test gpu', copyEngineCount });
  }

  host(tid = 1): number {
    return this.trace.addTrack({ kind: 'host-thread', name: '', pid: 1, tid });
  }

  stream(streamId: number, streamType: StreamType = 'non-blocking', deviceId = 0): number {
    return this.trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId,
      contextId: 1,
      streamId,
      streamType,
      priority: 0,
    });
  }

  /**
   * A stream of rank `rank` of a merged job: its process (pid 100 + rank, named with the rank)
   * on GPU `rank`, as mergeRanks writes a rank's tracks.
   */
  rankStream(rank: number, streamId: number): number {
    this.rankProcess(rank);
    return this.trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 100 + rank,
      deviceId: rank,
      contextId: 1,
      streamId,
      streamType: 'non-blocking',
      priority: 0,
      rank,
    });
  }

  /** The main host thread of rank `rank`'s process (see `rankStream`). */
  rankHost(rank: number): number {
    this.rankProcess(rank);
    return this.trace.addTrack({ kind: 'host-thread', name: '', pid: 100 + rank, tid: 1, rank });
  }

  private rankProcess(rank: number): void {
    if (this.trace.processes.some((p) => p.rank === rank)) {
      return;
    }
    this.trace.addProcess({ pid: 100 + rank, name: 'python3', rank });
    if (!this.trace.devices.some((d) => d.deviceId === rank)) {
      this.trace.addDevice({ deviceId: rank, name: 'test gpu' });
    }
  }

  /** A GPU op, and its API call when `spec.api` is given. Returns the GPU op's index. */
  gpu(spec: GpuOpSpec): number {
    const correlationId = spec.api === undefined ? 0 : this.nextCorrelation++;
    const op = this.trace.addOp({
      track: spec.track,
      kind: spec.kind,
      startNs: spec.startNs,
      endNs: spec.endNs,
      nameId: this.trace.strings.intern(spec.name ?? defaultName(spec.kind)),
      bytes: spec.bytes ?? 0,
      memKinds: spec.memKinds ?? 0,
      flags: spec.flags ?? 0,
      correlationId,
    });
    if (spec.api !== undefined) {
      const api = this.apiCall(spec.api, correlationId);
      this.trace.flows.append(api, op, FlowKind.ApiToGpu);
    }
    return op;
  }

  kernel(track: number, startNs: number, endNs: number, name = 'kernel', api?: ApiSpec): number {
    return this.gpu({ track, kind: OpKind.Kernel, startNs, endNs, name, ...(api ? { api } : {}) });
  }

  /** A host API call with no GPU op (a synchronize, a malloc) or host work. */
  apiCall(spec: ApiSpec, correlationId = 0, kind: number = OpKind.ApiCall): number {
    return this.trace.addOp({
      track: spec.hostTrack,
      kind,
      startNs: spec.startNs,
      endNs: spec.endNs,
      nameId: this.trace.strings.intern(spec.name),
      correlationId,
    });
  }

  /**
   * A push/pop range on a host thread (an NVTX range, a kineto CPU op or annotation), in the
   * domain `domain` (kineto stores its category there). Returns its index in `trace.ranges`.
   */
  range(hostTrack: number, name: string, startNs: number, endNs: number, domain = ''): number {
    return this.trace.ranges.append({
      startNs,
      endNs,
      track: hostTrack,
      nameId: this.trace.strings.intern(name),
      domainId: domain === '' ? 0 : this.trace.strings.intern(domain),
      depth: 0,
      kind: RangeKind.PushPop,
    });
  }

  /** Event record on one stream and the wait on another, linked by an EventRecordToWait flow. */
  eventWait(recordTrack: number, recordNs: number, waitTrack: number, waitFromNs: number): number {
    const record = this.gpu({
      track: recordTrack,
      kind: OpKind.EventRecord,
      startNs: recordNs,
      endNs: recordNs,
      name: 'cudaEventRecord',
    });
    const wait = this.gpu({
      track: waitTrack,
      kind: OpKind.StreamWait,
      startNs: waitFromNs,
      endNs: Math.max(waitFromNs, recordNs),
      name: 'cudaStreamWaitEvent',
    });
    this.trace.flows.append(record, wait, FlowKind.EventRecordToWait);
    return wait;
  }
}

function defaultName(kind: number): string {
  switch (kind) {
    case OpKind.CopyHtoD:
      return '[CUDA memcpy Host-to-Device]';
    case OpKind.CopyDtoH:
      return '[CUDA memcpy Device-to-Host]';
    case OpKind.Memset:
      return '[CUDA memset]';
    default:
      return 'op';
  }
}
