import type { StreamType, Trace } from '@streamscope/trace';
import type { ThreadToName } from './thread-names.ts';
import { threadTrackNames } from './thread-names.ts';

interface Lane {
  readonly kind: 'gpu-stream' | 'host-thread';
  readonly proc: number;
  readonly deviceId: number;
  readonly contextId: number;
  readonly streamId: number;
  readonly tid: number;
  /** A host lane's tid as the source wrote it, where `tid` is an id the importer made up. */
  tidText: string;
  name: string;
  streamType: StreamType;
  priority: number;
  /** The source vouches for deviceId (see `vouchDevice`). */
  deviceVouched: boolean;
}

const gpuCacheMask = 63;

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
  /** `${proc},${contextId}` → the device the context lives on, as the source vouches for it. */
  private readonly contextDevices = new Map<string, number>();
  /** gpuLane's cache: lane (-1: empty slot) and its key, by a hash of the key. */
  private readonly gpuCacheLane = new Int32Array(gpuCacheMask + 1).fill(-1);
  private readonly gpuCacheStream = new Float64Array(gpuCacheMask + 1);
  private readonly gpuCacheContext = new Float64Array(gpuCacheMask + 1);
  private readonly gpuCacheDevice = new Float64Array(gpuCacheMask + 1);
  private readonly gpuCacheProc = new Float64Array(gpuCacheMask + 1);

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
    // GPU ops hop between a few streams: a small exact cache by stream spares the string key.
    const slot =
      (streamId ^ Math.imul(contextId, 31) ^ Math.imul(deviceId, 7) ^ proc) & gpuCacheMask;
    const cached = this.gpuCacheLane[slot]!;
    if (
      cached >= 0 &&
      this.gpuCacheStream[slot] === streamId &&
      this.gpuCacheContext[slot] === contextId &&
      this.gpuCacheDevice[slot] === deviceId &&
      this.gpuCacheProc[slot] === proc
    ) {
      return cached;
    }
    const index = this.gpuLaneByKey(proc, deviceId, contextId, streamId);
    this.gpuCacheLane[slot] = index;
    this.gpuCacheStream[slot] = streamId;
    this.gpuCacheContext[slot] = contextId;
    this.gpuCacheDevice[slot] = deviceId;
    this.gpuCacheProc[slot] = proc;
    return index;
  }

  private gpuLaneByKey(
    proc: number,
    deviceId: number,
    contextId: number,
    streamId: number,
  ): number {
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
        tidText: '',
        name: '',
        streamType: 'unknown',
        priority: 0,
        deviceVouched: false,
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
        tidText: '',
        name: '',
        streamType: 'unknown',
        priority: 0,
        deviceVouched: false,
      });
      this.laneIndex.set(key, index);
    }
    return index;
  }

  /**
   * The source vouches for this GPU lane's device: its context lives there. Lanes of the same
   * process and context whose device the source does not vouch for (nsys sync rows carry device 0
   * whatever the context) move to that device when the trace is built, merging with its stream.
   */
  vouchDevice(lane: number): void {
    const found = this.lanes[lane];
    if (found !== undefined && !found.deviceVouched) {
      found.deviceVouched = true;
      this.setContextDevice(found.proc, found.contextId, found.deviceId);
    }
  }

  /** The device a process's context lives on (a side table's word); the first one said holds. */
  setContextDevice(proc: number, contextId: number, deviceId: number): void {
    const key = `${proc},${contextId}`;
    if (!this.contextDevices.has(key)) {
      this.contextDevices.set(key, deviceId);
    }
  }

  /** A GPU lane's device: its own if vouched for, else its context's if known, else its own. */
  private deviceOf(lane: Lane): number {
    return lane.deviceVouched
      ? lane.deviceId
      : (this.contextDevices.get(`${lane.proc},${lane.contextId}`) ?? lane.deviceId);
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

  /** The lane of GPU lane `lane`'s device, context and stream in process `proc`. */
  sameStreamIn(proc: number, lane: number): number {
    const from = this.lanes[lane]!;
    return this.gpuLane(proc, from.deviceId, from.contextId, from.streamId);
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

  /** How the source wrote a host lane's thread id, where the lane's tid is one made up for it. */
  spellThreadId(lane: number, text: string): void {
    const found = this.lanes[lane];
    if (found !== undefined) {
      found.tidText = text;
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
        ids.add(this.deviceOf(lane));
      }
    }
    return ids;
  }

  /**
   * Adds the used lanes to the trace as tracks (and their processes), in lane order, and returns
   * lane → track. GPU lanes that come out as the same (process, device, context, stream) once
   * their devices are resolved share one track. Thread names are resolved through `resolveText`
   * (they may be source strings), and threads of one process that share a name are told apart by
   * their tids (see threadTrackNames).
   */
  addTracks(trace: Trace, used: Uint8Array, resolveText: (ref: number) => string): Uint32Array {
    const procIndex = new Map<number, number>();
    const trackOf = new Uint32Array(this.lanes.length);
    const streamTracks = new Map<string, number>();
    const streamNames = this.streamNames(used);
    const hostNames = this.threadTrackNames(used, resolveText);
    this.lanes.forEach((lane, i) => {
      if (used[i] === 0) {
        return;
      }
      const owner = this.processes[lane.proc]!;
      if (!procIndex.has(lane.proc)) {
        procIndex.set(lane.proc, trace.addProcess({ pid: owner.pid, name: owner.name }));
      }
      if (lane.kind === 'gpu-stream') {
        const deviceId = this.deviceOf(lane);
        const key = `${lane.proc},${deviceId},${lane.contextId},${lane.streamId}`;
        const known = streamTracks.get(key);
        if (known !== undefined) {
          trackOf[i] = known;
          return;
        }
        const track = trace.addTrack({
          kind: 'gpu-stream',
          name: streamNames.get(key) ?? '',
          pid: owner.pid,
          deviceId,
          contextId: lane.contextId,
          streamId: lane.streamId,
          streamType: lane.streamType,
          priority: lane.priority,
        });
        trackOf[i] = track;
        streamTracks.set(key, track);
      } else {
        const name = hostNames.get(i) ?? '';
        trackOf[i] = trace.addTrack({ kind: 'host-thread', name, pid: owner.pid, tid: lane.tid });
      }
    });
    return trackOf;
  }

  /** The track name of each used host lane, by lane: its own name, else its thread's. */
  private threadTrackNames(
    used: Uint8Array,
    resolveText: (ref: number) => string,
  ): Map<number, string> {
    const hostLanes: number[] = [];
    const threads: ThreadToName[] = [];
    this.lanes.forEach((lane, i) => {
      if (used[i] === 0 || lane.kind !== 'host-thread') {
        return;
      }
      const nameRef = this.threadNames.get(`${lane.proc},${lane.tid}`);
      const name = lane.name !== '' ? lane.name : nameRef === undefined ? '' : resolveText(nameRef);
      hostLanes.push(i);
      threads.push({ proc: lane.proc, tid: lane.tid, tidText: lane.tidText, name });
    });
    const names = threadTrackNames(threads);
    return new Map(hostLanes.map((lane, k) => [lane, names[k]!]));
  }

  /** The first name given to any used lane of each resolved GPU stream. */
  private streamNames(used: Uint8Array): Map<string, string> {
    const names = new Map<string, string>();
    this.lanes.forEach((lane, i) => {
      if (used[i] !== 0 && lane.kind === 'gpu-stream' && lane.name !== '') {
        const key = `${lane.proc},${this.deviceOf(lane)},${lane.contextId},${lane.streamId}`;
        if (!names.has(key)) {
          names.set(key, lane.name);
        }
      }
    });
    return names;
  }
}
