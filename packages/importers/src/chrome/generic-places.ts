import type { TraceBuilder } from '../trace-builder.ts';
import type { ChromeMetadata } from './chrome-metadata.ts';
import { deviceNamedBy, idKey, intOr, streamNamedBy, trailingNumber } from './chrome-metadata.ts';

// Ids for string pids and tids that end in no number, above any real pid or tid.
const syntheticIdBase = 0x40000000;

/** Where a (pid, tid) track's events go: a GPU stream's lane or a host thread's. */
export interface TrackPlace {
  readonly gpu: boolean;
  readonly proc: number;
  readonly lane: number;
  /** A GPU track's device and stream (0 for a host track). */
  readonly deviceId: number;
  readonly streamId: number;
  /** A row that repeats other rows' events (TensorFlow's "/gpu:0/stream:all"): not drawn. */
  readonly repeats?: boolean;
}

/**
 * TensorFlow 1.x timelines (tf.python.client.timeline) name a process per device row:
 * "/job:localhost/replica:0/task:0/gpu:0 Compute" is the executor's view of the ops it ran for
 * the GPU (host time), "/gpu:0/stream:12 Compute" a stream, while "/gpu:0/stream:all" and
 * "/gpu:0/memcpy" repeat the kernels and copies of the stream rows.
 */
const tensorFlowExecutorRow = /^\/job:[^ ]*\/(?:device:)?gpu:\d+ /i;
const tensorFlowRepeatRow = /^\/(?:device:)?gpu:\d+\/(?:stream:all|memcpy)\b/i;
const tensorFlowStreamRow = /^\/(?:device:)?gpu:(\d+)\/stream:\d+\b/i;

/**
 * Places the (pid, tid) tracks of a generic Chrome trace: a track whose process names a GPU
 * ("Device 0", "GPU 1", or a `process_labels` saying so) or whose thread or process names a
 * stream ("stream 7", "Stream #14(Compute)", TensorFlow's "/gpu:0/stream:12") is a GPU stream;
 * every other track is a host thread.
 */
export class TrackPlacer {
  /** Decides a track's kind from its names and makes its process and lane. */
  /** `hostOnly`: a row of async events, a host row whatever its process is called. */
  place(
    pid: unknown,
    tid: unknown,
    builder: TraceBuilder,
    meta: ChromeMetadata,
    hostOnly = false,
  ): TrackPlace {
    const pidKey = idKey(pid);
    const tidKey = idKey(tid);
    const pidText = typeof pid === 'string' ? pid : undefined;
    const tidText = typeof tid === 'string' ? tid : undefined;
    const processName = meta.processName(pidKey) ?? pidText ?? '';
    const threadName = meta.threadName(pidKey, tidKey) ?? tidText;
    if (!hostOnly && tensorFlowRepeatRow.test(processName)) {
      return { gpu: false, proc: -1, lane: -1, deviceId: 0, streamId: 0, repeats: true };
    }
    // TensorFlow's stream rows are a process each: one process per GPU holds them together.
    const tfDevice = hostOnly ? undefined : tensorFlowStreamRow.exec(processName)?.[1];
    const proc =
      tfDevice === undefined
        ? builder.lanes.processFor(`chrome:${pidKey}`, this.pidNumber(pid, pidKey))
        : builder.lanes.processFor(`chrome-tf:/gpu:${tfDevice}`, this.pidNumber(pid, pidKey));
    builder.lanes.nameProcess(proc, tfDevice === undefined ? processName : `/gpu:${tfDevice}`);
    // The legacy autograd profiler puts kernels under "CUDA functions", tid = device, no streams.
    const legacyGpu = !hostOnly && pid === 'CUDA functions';
    let device: number | undefined;
    let stream: number | undefined;
    if (legacyGpu) {
      device = intOr(tid, 0);
      stream = 0;
    } else if (!hostOnly && !tensorFlowExecutorRow.test(processName)) {
      device =
        deviceNamedBy(pidText) ??
        deviceNamedBy(meta.processName(pidKey)) ??
        deviceNamedBy(meta.processLabel(pidKey));
      stream = streamNamedBy(tidText) ?? streamNamedBy(threadName) ?? streamNamedBy(processName);
    }
    if (device === undefined && stream === undefined) {
      const hostTid = this.hostTid(tid, `${pidKey}\u0000${tidKey}`);
      const lane = builder.lanes.hostLane(proc, hostTid);
      if (threadName !== undefined) {
        builder.lanes.nameLane(lane, threadName);
      }
      if ((typeof tid === 'string' || typeof tid === 'number') && String(tid) !== String(hostTid)) {
        // The lane's tid is not the source's ("Loader 1"): a label that tells threads apart by
        // tid shows the source's.
        builder.lanes.spellThreadId(lane, String(tid));
      }
      return { gpu: false, proc, lane, deviceId: 0, streamId: 0 };
    }
    const deviceId = device ?? intOr(pid, 0);
    const streamId =
      stream ?? (tidText === undefined ? intOr(tid, 0) : (trailingNumber(tidText) ?? 0));
    const lane = builder.lanes.gpuLane(proc, deviceId, 0, streamId);
    if (legacyGpu) {
      builder.lanes.nameLane(lane, `GPU ${deviceId} (legacy profiler: no streams)`);
    }
    return { gpu: true, proc, lane, deviceId, streamId };
  }

  private readonly syntheticIds = new Map<string, number>();

  /** A number pid as is; a string's trailing number ("Device 1" → 1), else an id of its own. */
  private pidNumber(value: unknown, key: string): number {
    const trailing = typeof value === 'string' ? trailingNumber(value) : undefined;
    return trailing !== undefined && Number.isSafeInteger(trailing)
      ? trailing
      : this.hostTid(value, key);
  }

  /**
   * A number tid as is, also one written as a string; any other string gets an id of its own (it
   * names the thread): two threads "Worker 1" and "Loader 1" stay two lanes.
   */
  private hostTid(value: unknown, key: string): number {
    if (typeof value === 'number' && Number.isSafeInteger(value)) {
      return value;
    }
    // A number written as a string ("tid": "1087077", as AMD's RPD converter writes them).
    if (typeof value === 'string' && /^\d{1,15}$/.test(value)) {
      return Number(value);
    }
    let id = this.syntheticIds.get(key);
    if (id === undefined) {
      id = syntheticIdBase + this.syntheticIds.size;
      this.syntheticIds.set(key, id);
    }
    return id;
  }
}
