import type { CopyDirection, Plan, PlanOp, PlanStreamType } from '@streamscope/workload';
import type { DeviceInfo, StreamType } from '@streamscope/trace';
import { Trace } from '@streamscope/trace';
import type { NativeBuffer, NativePlan, NativeStream } from './native-plan.ts';
import { NativeOpCode, NativeOpList } from './native-plan.ts';
import { CollectiveLowerer, collectiveKernelLabel } from './lower-collectives.ts';
import type { ProbeDevice } from './protocol.ts';

export interface LowerOptions {
  /** CUDA ordinal of plan device 0; plan device d runs on ordinal firstDevice + d. */
  readonly firstDevice: number;
  readonly devices: readonly ProbeDevice[];
  readonly pid: number;
}

const nativeStreamType: Record<PlanStreamType, 0 | 1 | 2 | 3> = {
  'legacy-default': 0,
  'per-thread-default': 1,
  blocking: 2,
  'non-blocking': 3,
};

// GPU op labels as the simulator writes them, so runs on either backend read alike.
const copyNames: Record<CopyDirection, string> = {
  htod: 'memcpy HtoD',
  dtoh: 'memcpy DtoH',
  dtod: 'memcpy DtoD',
  ptop: 'memcpy PtoP',
  htoh: 'memcpy HtoH',
};

const nativeBufferKind = {
  device: 0,
  'host-pinned': 1,
  'host-pageable': 2,
  'stream-ordered': 3,
} as const;

/** An empty trace for a GPU run of `plan`; lowerPlan fills its structure. */
export function cudaRunTrace(plan: Plan, producer: string, preset?: string): Trace {
  return new Trace({
    title: plan.name,
    sourceFormat: 'streamscope-cuda',
    producer,
    timingMethod: 'cupti',
    originNs: '0',
    createdAt: new Date().toISOString(),
    ...(preset !== undefined ? { preset } : {}),
  });
}

/**
 * Lowers a validated plan for the addon and builds, in `trace`, the skeleton it reports into:
 * host threads and streams become tracks, op labels strings, kernel shapes launch configs.
 * Throws with the place when the plan needs more devices than the machine has.
 */
export function lowerPlan(plan: Plan, trace: Trace, options: LowerOptions): NativePlan {
  const ordinal = (planDevice: number): number => options.firstDevice + planDevice;
  for (const device of plan.devices) {
    const found = options.devices.find((d) => d.deviceId === ordinal(device.id));
    if (found === undefined) {
      throw new Error(
        `plan device ${device.id} (${device.name}) needs CUDA device ${ordinal(device.id)}, but the machine has ${options.devices.length}`,
      );
    }
    trace.addDevice(deviceInfo(found));
  }
  trace.addProcess({ pid: options.pid, name: 'streamscope-executor' });
  const threadTracks = plan.threads.map((t) =>
    trace.addTrack({ kind: 'host-thread', name: t.name, pid: options.pid, tid: t.id }),
  );
  const streams: NativeStream[] = plan.streams.map((s) => {
    const device = options.devices.find((d) => d.deviceId === ordinal(s.device));
    const [greatest, least] = device?.priorityRange ?? [s.priority, s.priority];
    const priority = Math.min(least, Math.max(greatest, s.priority));
    const track = trace.addTrack({
      kind: 'gpu-stream',
      name: s.name,
      pid: options.pid,
      deviceId: ordinal(s.device),
      contextId: 0,
      streamId: s.id,
      streamType: s.type as StreamType,
      priority,
    });
    return { device: ordinal(s.device), type: nativeStreamType[s.type], priority, track };
  });
  const buffers: NativeBuffer[] = plan.buffers.map((b) => ({
    device: ordinal(b.device),
    kind: nativeBufferKind[b.kind],
    bytes: b.bytes,
    deferred: b.allocation === 'op' ? 1 : 0,
  }));
  const collectives = new CollectiveLowerer(plan, ordinal);
  const lowerer = new OpLowerer(plan, trace, collectives);
  const graphs = plan.graphs.map((g) => {
    const list = new NativeOpList();
    g.ops.forEach((op) => lowerer.lower(op, list, g.stream));
    return { captureStream: g.stream, ops: list.finish() };
  });
  const threads = plan.threads.map((t, i) => {
    const list = new NativeOpList();
    // A thread's legacy default stream has the id of its device (plan.ts): ops without a
    // stream (host work, syncs) select the thread's device through it.
    t.ops.forEach((op) => lowerer.lower(op, list, t.device, i));
    return { track: threadTracks[i]!, ops: list.finish() };
  });
  const events = plan.events.map((e) => ({ device: ordinal(eventDevice(plan, e.id)) }));
  return {
    devices: plan.devices.map((d) => ordinal(d.id)),
    streams,
    buffers,
    events,
    graphs,
    threads,
    ...(collectives.comms.length > 0
      ? { comms: collectives.comms, collectives: collectives.collectives }
      : {}),
  };
}

function deviceInfo(d: ProbeDevice): DeviceInfo {
  return {
    deviceId: d.deviceId,
    name: d.name,
    ...(d.smCount !== undefined ? { smCount: d.smCount } : {}),
    ...(d.copyEngineCount !== undefined ? { copyEngineCount: d.copyEngineCount } : {}),
    ...(d.memoryBytes !== undefined ? { memoryBytes: d.memoryBytes } : {}),
    ...(d.computeCapability !== undefined ? { computeCapability: d.computeCapability } : {}),
    ...(d.pciBusId !== undefined ? { pciBusId: d.pciBusId } : {}),
    ...(d.priorityRange !== undefined ? { priorityRange: d.priorityRange } : {}),
    ...(d.clockRateKHz !== undefined ? { clockRateKHz: d.clockRateKHz } : {}),
  };
}

/** The device of the stream an event is recorded on (events live on one device). */
function eventDevice(plan: Plan, event: number): number {
  const all = [...plan.threads.flatMap((t) => t.ops), ...plan.graphs.flatMap((g) => g.ops)];
  for (const op of all) {
    if (op.kind === 'eventRecord' && op.event === event) {
      return plan.streams[op.stream]?.device ?? 0;
    }
  }
  return 0;
}

class OpLowerer {
  constructor(
    private readonly plan: Plan,
    private readonly trace: Trace,
    private readonly collectives: CollectiveLowerer,
  ) {}

  private name(label: string): number {
    return this.trace.strings.intern(label);
  }

  /** `hostStream`: the stream whose device host-side ops select (the thread's legacy stream). */
  lower(op: PlanOp, out: NativeOpList, hostStream: number, thread = -1): void {
    const C = NativeOpCode;
    switch (op.kind) {
      case 'collective':
      case 'send':
      case 'recv': {
        const ops = this.plan.threads[thread]?.ops;
        if (ops === undefined) {
          throw new Error(`${op.src}: a ${op.kind} cannot be captured into a graph`);
        }
        this.collectives.lower(op, thread, ops, out, this.name(collectiveKernelLabel(op)));
        return;
      }
      case 'kernel': {
        const refId = this.trace.launches.intern({
          gridX: op.grid[0],
          gridY: op.grid[1],
          gridZ: op.grid[2],
          blockX: op.block[0],
          blockY: op.block[1],
          blockZ: op.block[2],
          sharedMemBytes: op.sharedMemBytes,
          registersPerThread: 0,
        });
        const timed = op.mode === 'timed';
        out.push({
          code: timed ? C.KernelTimed : C.KernelWork,
          stream: op.stream,
          args: [
            timed ? op.durNs : op.iterations,
            op.grid[0],
            op.grid[1],
            op.grid[2],
            op.block[0],
            op.block[1] + op.block[2] * 65536,
            op.sharedMemBytes,
          ],
          nameId: this.name(op.name),
          refId,
        });
        return;
      }
      case 'copy':
        out.push({
          code: op.direction === 'ptop' ? C.PeerCopy : C.Copy,
          stream: op.stream,
          args: [
            op.dstBuffer,
            op.srcBuffer,
            op.bytes,
            op.async ? 1 : 0,
            op.dstOffset,
            op.srcOffset,
          ],
          nameId: this.name(copyNames[op.direction]),
        });
        return;
      case 'memset':
        out.push({
          code: C.Memset,
          stream: op.stream,
          args: [op.buffer, op.bytes, op.async ? 1 : 0, op.value, op.offset],
          nameId: this.name('memset'),
        });
        return;
      case 'eventRecord':
        out.push({
          code: C.EventRecord,
          stream: op.stream,
          args: [op.event],
          nameId: this.name('event record'),
          refId: op.event,
        });
        return;
      case 'streamWait':
        if (op.afterRecord !== null) {
          out.push({ code: C.WaitRecorded, stream: op.stream, args: [op.event, 1] });
        }
        out.push({
          code: C.StreamWait,
          stream: op.stream,
          args: [op.event],
          nameId: this.name('stream wait'),
          refId: op.event,
        });
        return;
      case 'eventSync':
        if (op.afterRecord !== null) {
          out.push({ code: C.WaitRecorded, stream: hostStream, args: [op.event, 1] });
        }
        out.push({ code: C.EventSync, stream: hostStream, args: [op.event] });
        return;
      case 'streamSync':
        out.push({ code: C.StreamSync, stream: op.stream });
        return;
      case 'deviceSync':
        out.push({ code: C.DeviceSync, stream: op.device, args: [op.device] });
        return;
      case 'hostFunc':
        out.push({
          code: C.HostFunc,
          stream: op.stream,
          args: [op.durNs],
          nameId: this.name(op.name),
        });
        return;
      case 'hostWork':
        out.push({
          code: C.HostWork,
          stream: hostStream,
          args: [op.durNs],
          nameId: this.name(op.name),
        });
        return;
      case 'malloc':
        out.push({
          code: op.async ? C.MallocAsync : C.Malloc,
          stream: op.stream ?? this.plan.buffers[op.buffer]?.device ?? hostStream,
          args: [op.buffer],
        });
        return;
      case 'free':
        out.push({
          code: op.async ? C.FreeAsync : C.Free,
          stream: op.stream ?? this.plan.buffers[op.buffer]?.device ?? hostStream,
          args: [op.buffer],
        });
        return;
      case 'graphCapture':
        out.push({
          code: C.GraphCapture,
          stream: this.plan.graphs[op.graph]?.stream ?? hostStream,
          args: [op.graph],
        });
        return;
      case 'graphLaunch':
        out.push({
          code: C.GraphLaunch,
          stream: op.stream,
          args: [op.graph, op.count],
          nameId: this.name(`graph ${this.plan.graphs[op.graph]?.name ?? op.graph}`),
        });
        return;
      case 'rangePush':
        out.push({ code: C.RangePush, stream: hostStream, nameId: this.name(op.name) });
        return;
      case 'rangePop':
        out.push({ code: C.RangePop, stream: hostStream });
        return;
    }
  }
}
