import { GapCause } from '@streamscope/timeline';
import type { GapTable } from '@streamscope/timeline';
import type { GapItem } from '../api/types.ts';

/** Analysis' gap causes onto the renderer's shading classes. */
const causeOf: Readonly<Record<string, GapCause>> = {
  'event-wait': GapCause.EventWait,
  'legacy-default-stream': GapCause.DefaultStream,
  'engine-busy': GapCause.EngineQueue,
  'host-sync': GapCause.HostWait,
  'sync-copy': GapCause.HostWait,
  'alloc-sync': GapCause.HostWait,
  'host-busy': GapCause.HostWait,
  'launch-latency': GapCause.LaunchLatency,
};

/** The gaps drawn on a stream's row (device-wide ones, track -1, are not), in table order. */
export function drawnGaps(gaps: readonly GapItem[]): GapItem[] {
  return gaps.filter((g) => g.track >= 0 && g.toNs > g.fromNs);
}

/** The renderer's shading class of an analysis gap cause. */
export function gapCauseOf(cause: string): GapCause {
  return causeOf[cause] ?? GapCause.Other;
}

/** Stream gaps (device-wide ones, track -1, are not drawn on a row) as the renderer's columns. */
export function gapTableFrom(gaps: readonly GapItem[]): GapTable {
  const streamGaps = drawnGaps(gaps);
  const table = {
    count: streamGaps.length,
    startNs: new Float64Array(streamGaps.length),
    endNs: new Float64Array(streamGaps.length),
    track: new Uint16Array(streamGaps.length),
    cause: new Uint8Array(streamGaps.length),
  };
  streamGaps.forEach((g, i) => {
    table.startNs[i] = g.fromNs;
    table.endNs[i] = g.toNs;
    table.track[i] = g.track;
    table.cause[i] = gapCauseOf(g.cause);
  });
  return table;
}
