import type { StreamType, Trace } from '@streamscope/trace';

interface Lane {
  readonly kind: 'gpu-stream' | 'host-thread';
  readonly proc: number;
  readonly deviceId: number;
  readonly contextId: number;
  readonly streamId: number;
  readonly tid: number;
  name: string;
  streamType: StreamType;
  priority: number;
}

interface Process {
  pid: number;
  name: string;
}

/** Processes and lanes as the importers key them, turned into trace tracks when the trace is built. */
export class LaneRegistry {
  private readonly lanes: Lane[] = [];
  private readonly laneIndex = new Map<string, number>();
  private readonly processes: Process[] = [];
  private readonly processIndex = new Map<string, number>();
  private readonly threadNames = new Map<string, number>();

  get count(): number {
    return this.lanes.length;
  }

  /** A process by the source's key (nsys: VM and pid; kineto: pid). */
  processFor(key: string, pid: number): number {
    let index = this.processIndex.get(key);
    if (index === undefined) {
      index = this.processes.length;
      this.processes.push({ pid, name: '' });
      this.processIndex.set(key, index);
    }
    return index;
  }

  setProcessPid(proc: number, pid: number): void {
    const owner = this.processes[proc];
    if (owner !== undefined) {
      owner.pid = pid;
    }
  }

  hasProcess(key: string): number | undefined {
    return this.processIndex.get(key);
  }

  nameProcess(proc: number, name: string): void {
    const owner = this.processes[proc];
    if (owner !== undefined && name !== '') {
      owner.name = name;
    }
  }

  /** The lane of a GPU stream, keyed by process, device, context and stream. */
  gpuLane(proc: number, deviceId: number, contextId: number, streamId: number): number {
    const key = `g${proc},${deviceId},${contextId},${streamId}`;
    let index = this.laneIndex.get(key);
    if (index === undefined) {
      index = this.lanes.length;
      this.lanes.push({
        kind: 'gpu-stream',
        proc,
        deviceId,
        contextId,
        streamId,
        tid: 0,
        name: '',
        streamType: 'unknown',
        priority: 0,
      });
      this.laneIndex.set(key, index);
    }
    return index;
  }

  hostLane(proc: number, tid: number): number {
    const key = `h${proc},${tid}`;
    let index = this.laneIndex.get(key);
    if (index === undefined) {
      index = this.lanes.length;
      this.lanes.push({
        kind: 'host-thread',
        proc,
        deviceId: 0,
        contextId: 0,
        streamId: 0,
        tid,
        name: '',
        streamType: 'unknown',
        priority: 0,
      });
      this.laneIndex.set(key, index);
    }
    return index;
  }

  /** Stream facts known from a side table (nsys SQLite TARGET_INFO_CUDA_STREAM). */
  describeStream(
    proc: number,
    contextId: number,
    streamId: number,
    type: StreamType,
    priority: number,
  ): void {
    for (const lane of this.lanes) {
      if (
        lane.kind === 'gpu-stream' &&
        lane.proc === proc &&
        lane.contextId === contextId &&
        lane.streamId === streamId
      ) {
        lane.streamType = type;
        lane.priority = priority;
      }
    }
  }

  laneProc(lane: number): number {
    return this.lanes[lane]?.proc ?? 0;
  }

  nameLane(lane: number, name: string): void {
    const found = this.lanes[lane];
    if (found !== undefined) {
      found.name = name;
    }
  }

  /** A thread's name as a name ref, applied to its lane when the trace is built. */
  nameThread(proc: number, tid: number, nameRef: number): void {
    this.threadNames.set(`${proc},${tid}`, nameRef);
  }

  firstNamedProcess(): { readonly name: string } | undefined {
    return this.processes.find((p) => p.name !== '');
  }

  deviceIds(): Set<number> {
    const ids = new Set<number>();
    for (const lane of this.lanes) {
      if (lane.kind === 'gpu-stream') {
        ids.add(lane.deviceId);
      }
    }
    return ids;
  }

  /**
   * Adds the used lanes to the trace as tracks (and their processes), in lane order, and returns
   * lane → track. Thread names are resolved through `resolveText` (they may be source strings).
   */
  addTracks(trace: Trace, used: Uint8Array, resolveText: (ref: number) => string): Uint32Array {
    const procIndex = new Map<number, number>();
    const trackOf = new Uint32Array(this.lanes.length);
    this.lanes.forEach((lane, i) => {
      if (used[i] === 0) {
        return;
      }
      const owner = this.processes[lane.proc]!;
      if (!procIndex.has(lane.proc)) {
        procIndex.set(lane.proc, trace.addProcess({ pid: owner.pid, name: owner.name }));
      }
      if (lane.kind === 'gpu-stream') {
        trackOf[i] = trace.addTrack({
          kind: 'gpu-stream',
          name: lane.name,
          pid: owner.pid,
          deviceId: lane.deviceId,
          contextId: lane.contextId,
          streamId: lane.streamId,
          streamType: lane.streamType,
          priority: lane.priority,
        });
      } else {
        const nameRef = this.threadNames.get(`${lane.proc},${lane.tid}`);
        const name =
          lane.name !== '' ? lane.name : nameRef === undefined ? '' : resolveText(nameRef);
        trackOf[i] = trace.addTrack({ kind: 'host-thread', name, pid: owner.pid, tid: lane.tid });
      }
    });
    return trackOf;
  }
}
