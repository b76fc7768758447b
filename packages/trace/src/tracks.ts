/** A GPU as the trace knows it. Optional fields are unknown for some sources. */
export interface DeviceInfo {
  /** The producer's device ordinal (CUDA device id). */
  readonly deviceId: number;
  readonly name: string;
  readonly smCount?: number;
  /** asyncEngineCount: how many copies can run at once. */
  readonly copyEngineCount?: number;
  readonly memoryBytes?: number;
  readonly computeCapability?: string;
  readonly pciBusId?: string;
  /** [greatest, least] stream priority (numerically lower is higher priority). */
  readonly priorityRange?: readonly [number, number];
  readonly clockRateKHz?: number;
  readonly memoryBandwidthBytesPerS?: number;
}

/** A profiled process. Never its command line or environment: exports carry secrets. */
export interface ProcessInfo {
  readonly pid: number;
  readonly name: string;
  /** Its rank in a distributed job, in a trace merged from several ranks' files. */
  readonly rank?: number;
}

export const StreamType = {
  LegacyDefault: 'legacy-default',
  PerThreadDefault: 'per-thread-default',
  Blocking: 'blocking',
  NonBlocking: 'non-blocking',
  Unknown: 'unknown',
} as const;
export type StreamType = (typeof StreamType)[keyof typeof StreamType];

export const streamTypes: readonly StreamType[] = Object.values(StreamType);

/** A lane of the timeline: a GPU stream or a host thread. Its index in `Trace.tracks` is the op's `track`. */
export type TrackInfo = GpuStreamTrack | HostThreadTrack;

export interface GpuStreamTrack {
  readonly kind: 'gpu-stream';
  readonly name: string;
  readonly pid: number;
  readonly deviceId: number;
  readonly contextId: number;
  readonly streamId: number;
  readonly streamType: StreamType;
  /** CUDA stream priority; lower is higher priority. 0 when unknown. */
  readonly priority: number;
  /** The rank of its process, in a trace merged from several ranks' files (`ProcessInfo.rank`). */
  readonly rank?: number;
}

export interface HostThreadTrack {
  readonly kind: 'host-thread';
  readonly name: string;
  readonly pid: number;
  readonly tid: number;
  /** The rank of its process, in a trace merged from several ranks' files (`ProcessInfo.rank`). */
  readonly rank?: number;
}

const streamTypeRank: Record<StreamType, number> = {
  'legacy-default': 0,
  'per-thread-default': 1,
  blocking: 2,
  'non-blocking': 3,
  unknown: 4,
};

/**
 * Display order of tracks: by rank (tracks without one first), then per process its host
 * threads first (by tid), then per device and context its streams (default streams first, then
 * by stream id). Stable: ties keep index order.
 */
export function displayOrder(tracks: readonly TrackInfo[]): number[] {
  const indices = tracks.map((_, i) => i);
  return indices.sort((a, b) => compareTracks(tracks[a]!, tracks[b]!) || a - b);
}

function compareTracks(a: TrackInfo, b: TrackInfo): number {
  const rankA = a.rank ?? -1;
  const rankB = b.rank ?? -1;
  if (rankA !== rankB) {
    return rankA - rankB;
  }
  if (a.pid !== b.pid) {
    return a.pid - b.pid;
  }
  if (a.kind !== b.kind) {
    return a.kind === 'host-thread' ? -1 : 1;
  }
  if (a.kind === 'host-thread' && b.kind === 'host-thread') {
    return a.tid - b.tid;
  }
  if (a.kind === 'gpu-stream' && b.kind === 'gpu-stream') {
    return (
      a.deviceId - b.deviceId ||
      a.contextId - b.contextId ||
      streamTypeRank[a.streamType] - streamTypeRank[b.streamType] ||
      a.streamId - b.streamId
    );
  }
  return 0;
}

/** A short label: "Stream 14 (non-blocking, prio -1)" or "Thread 1234". */
export function trackLabel(track: TrackInfo): string {
  if (track.name !== '') {
    return track.name;
  }
  if (track.kind === 'host-thread') {
    return `Thread ${track.tid}`;
  }
  return `Stream ${track.streamId}`;
}

const labelCache = new WeakMap<readonly TrackInfo[], readonly string[]>();

/** What tells tracks apart, in the order a label names it. */
const distinctions: readonly ((t: TrackInfo) => string | undefined)[] = [
  (t) => (t.rank === undefined ? undefined : `rank ${t.rank}`),
  (t) => `pid ${t.pid}`,
  (t) => (t.kind === 'gpu-stream' ? `GPU ${t.deviceId}` : undefined),
  (t) => (t.kind === 'gpu-stream' ? `context ${t.contextId}` : undefined),
  (t) => (t.kind === 'host-thread' ? `tid ${t.tid}` : undefined),
];

/**
 * Every track's label, told apart where tracks share one (a stream id in two processes or on
 * two GPUs, or in two ranks): each of those gets what differs among them, e.g. "Stream 7 · GPU 1",
 * "Stream 7 · pid 4242" or "Stream 7 · rank 1 · pid 4242". Cached per tracks array until it grows.
 */
export function trackLabels(tracks: readonly TrackInfo[]): readonly string[] {
  const cached = labelCache.get(tracks);
  if (cached !== undefined && cached.length === tracks.length) {
    return cached;
  }
  const labels = tracks.map(trackLabel);
  const sharing = new Map<string, number[]>();
  labels.forEach((label, i) => {
    sharing.set(label, [...(sharing.get(label) ?? []), i]);
  });
  for (const [label, members] of sharing) {
    if (members.length < 2) {
      continue;
    }
    const told = distinctions.filter(
      (part) => new Set(members.map((i) => part(tracks[i]!))).size > 1,
    );
    const seen = new Map<string, number>();
    for (const i of members) {
      const parts = told.map((part) => part(tracks[i]!)).filter((p) => p !== undefined);
      let full = [label, ...parts].join(' · ');
      // The same stream listed twice: number the repeats.
      const repeat = (seen.get(full) ?? 0) + 1;
      seen.set(full, repeat);
      if (repeat > 1) {
        full = `${full} (${repeat})`;
      }
      labels[i] = full;
    }
  }
  labelCache.set(tracks, labels);
  return labels;
}
