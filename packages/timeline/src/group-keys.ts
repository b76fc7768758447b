import type { Trace } from '@streamscope/trace';

// Keys of what a row header folds, short and URL-safe (they go into links, comma-separated):
// p<pid> a process, h<pid> its host threads, d<pid>.<device> a device, c<pid>.<device>.<context>
// a context, n<track> a track's range lanes.
export const processGroupKey = (pid: number): string => `p${pid}`;
export const hostGroupKey = (pid: number): string => `h${pid}`;
export const deviceGroupKey = (pid: number, deviceId: number): string => `d${pid}.${deviceId}`;
export const contextGroupKey = (pid: number, deviceId: number, contextId: number): string =>
  `c${pid}.${deviceId}.${contextId}`;
export const nvtxGroupKey = (track: number): string => `n${track}`;

/** Whether `key` has the form of a group key (a link's `c=` list is checked with it). */
export function isGroupKey(key: string): boolean {
  return /^(?:[phn]-?\d+|d-?\d+\.\d+|c-?\d+\.\d+\.\d+)$/.test(key);
}

/** "4 streams hidden", "1 thread hidden". */
export function hiddenCountLabel(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'} hidden`;
}

/** How many tracks of `order` each process, host-thread, device and context key holds. */
export function groupTrackCounts(trace: Trace, order: readonly number[]): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string): void => {
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  for (const t of order) {
    const track = trace.tracks[t]!;
    add(processGroupKey(track.pid));
    if (track.kind === 'host-thread') {
      add(hostGroupKey(track.pid));
    } else {
      add(deviceGroupKey(track.pid, track.deviceId));
      add(contextGroupKey(track.pid, track.deviceId, track.contextId));
    }
  }
  return counts;
}

// What a range lane holds, from the ranges' domains: PyTorch's profiler (kineto) files its CPU
// ops, annotations and Python frames under these categories; anything else is an NVTX domain.
const rangeSources: readonly (readonly [string, string])[] = [
  ['cpu_op', 'CPU ops'],
  ['user_annotation', 'user annotations'],
  ['gpu_user_annotation', 'user annotations'],
  ['python_function', 'Python'],
];

/**
 * The kind of ranges `domain` holds: 'CPU ops', 'user annotations', 'Python'; else, in a trace of
 * format `sourceFormat`, the NVTX domain of an nsys export ('NVTX'), or a Chrome trace's own
 * category (its events are not NVTX ranges: 'ranges' where they have none).
 */
export function rangeSourceOf(domain: string, sourceFormat = ''): string {
  const known = rangeSources.find(([name]) => name === domain)?.[1];
  if (known !== undefined) {
    return known;
  }
  if (sourceFormat === 'chrome-trace') {
    return domain === '' ? 'ranges' : domain;
  }
  return 'NVTX';
}
