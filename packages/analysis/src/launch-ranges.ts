import type { Trace } from '@streamscope/trace';
import { IdNumberMap } from '@streamscope/trace';
import { linkApiCalls } from './api-links.ts';
import { HostRanges } from './host-ranges.ts';

/**
 * Host ranges projected onto one GPU stream (Nsight's "NVTX on GPU"): per range, from the first to
 * the last op of the stream launched inside it. Sorted by start; `range` indexes `trace.ranges`.
 */
export interface LaunchRangeSegments {
  readonly track: number;
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  readonly range: Uint32Array;
}

/**
 * For every GPU stream whose ops have a launching API call inside a host range (NVTX push/pop,
 * a kineto CPU op or user annotation), the innermost such range around each call, joined into
 * one segment per (stream, range). Streams with none are left out.
 */
export function launchRangesByStream(trace: Trace): LaunchRangeSegments[] {
  const cols = trace.ops.columns();
  const host = new HostRanges(trace);
  if (host.count === 0) {
    return [];
  }
  const { apiOf } = linkApiCalls(trace, cols);
  const out: LaunchRangeSegments[] = [];
  trace.tracks.forEach((info, track) => {
    if (info.kind !== 'gpu-stream') {
      return;
    }
    // range → first start and last end of the stream's ops launched inside it.
    const firstNs = new IdNumberMap();
    const lastNs = new IdNumberMap();
    for (const op of trace.ops.trackOrder(track)) {
      const api = apiOf[op]!;
      if (api < 0) {
        continue;
      }
      const range = host.innermostCovering(cols.track[api]!, cols.startNs[api]!, cols.endNs[api]!);
      if (range < 0) {
        continue;
      }
      const startNs = firstNs.get(range);
      firstNs.set(
        range,
        startNs === undefined ? cols.startNs[op]! : Math.min(startNs, cols.startNs[op]!),
      );
      lastNs.set(range, Math.max(lastNs.get(range) ?? -Infinity, cols.endNs[op]!));
    }
    if (firstNs.size === 0) {
      return;
    }
    const ranges = Uint32Array.from(firstNs.keyArray());
    const startOf = (r: number): number => firstNs.get(r)!;
    ranges.sort((a, b) => startOf(a) - startOf(b) || a - b);
    out.push({
      track,
      startNs: Float64Array.from(ranges, startOf),
      endNs: Float64Array.from(ranges, (r) => lastNs.get(r)!),
      range: ranges,
    });
  });
  return out;
}
