import type { Trace } from '@streamscope/trace';
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
    // range → [first start, last end] of the stream's ops launched inside it.
    const spans = new Map<number, [number, number]>();
    for (const op of trace.ops.trackOrder(track)) {
      const api = apiOf[op]!;
      if (api < 0) {
        continue;
      }
      const range = host.innermostCovering(cols.track[api]!, cols.startNs[api]!, cols.endNs[api]!);
      if (range < 0) {
        continue;
      }
      const span = spans.get(range);
      if (span === undefined) {
        spans.set(range, [cols.startNs[op]!, cols.endNs[op]!]);
      } else {
        span[0] = Math.min(span[0], cols.startNs[op]!);
        span[1] = Math.max(span[1], cols.endNs[op]!);
      }
    }
    if (spans.size === 0) {
      return;
    }
    const order = [...spans.entries()].sort((a, b) => a[1][0] - b[1][0] || a[0] - b[0]);
    out.push({
      track,
      startNs: Float64Array.from(order, ([, span]) => span[0]),
      endNs: Float64Array.from(order, ([, span]) => span[1]),
      range: Uint32Array.from(order, ([range]) => range),
    });
  });
  return out;
}
