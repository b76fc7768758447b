import type { LegendEntry, Rgba } from './colors.ts';
import { cssColor, rgba } from './colors.ts';
import { lowerBoundOf, upperBoundOf } from '@streamscope/trace';

/**
 * Why a stream sat idle between two of its ops. The app passes these from analysis through
 * `TimelineView.setGaps`; until then every idle stretch is shaded as `Idle`.
 */
export const GapCause = {
  /** Nothing known: the stream simply had no work. */
  Idle: 0,
  /** The host was busy or blocked (synchronize, pageable copy staging) and enqueued nothing. */
  HostWait: 1,
  /** The stream waited on an event recorded in another stream. */
  EventWait: 2,
  /** Launch latency: the op was enqueued but had not started yet. */
  LaunchLatency: 3,
  /** Serialized behind the legacy default stream. */
  DefaultStream: 4,
  /** Queued behind another stream's op on a shared copy engine or hardware queue. */
  EngineQueue: 5,
  /** Any other cause, and gaps analysis cannot explain (its cause "unknown"). */
  Other: 6,
} as const;
export type GapCause = (typeof GapCause)[keyof typeof GapCause];

export const gapCauseCount = 7;

/** Gaps as columns (one entry per idle stretch), ns since the trace origin. */
export interface GapTable {
  readonly count: number;
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  readonly track: Uint16Array;
  readonly cause: Uint8Array;
}

// Every pair of shades, and each shade against every op colour a stream row draws, stay at
// least 10 CIEDE2000 apart for normal vision and under protanopia, deuteranopia and tritanopia
// (color-vision.test.ts): they differ in lightness as well as in hue.
const gapSpec: readonly { id: string; label: string; color: Rgba }[] = [
  { id: 'idle', label: 'Idle', color: rgba(170, 187, 221, 36) },
  { id: 'host-wait', label: 'Gap: host wait', color: rgba(238, 136, 34, 130) },
  { id: 'event-wait', label: 'Gap: event wait', color: rgba(17, 0, 255, 130) },
  { id: 'launch-latency', label: 'Gap: launch latency', color: rgba(170, 17, 255, 47) },
  { id: 'default-stream', label: 'Gap: default stream', color: rgba(119, 68, 34, 110) },
  { id: 'engine-queue', label: 'Gap: engine queue', color: rgba(51, 204, 119, 90) },
  // Analysis calls what it cannot explain "unknown"; the legend says the same word.
  { id: 'other', label: 'Gap: unknown', color: rgba(0, 17, 34, 70) },
];

/** Shading of each gap cause, indexed by GapCause. */
export const gapColors: Uint32Array = Uint32Array.from(gapSpec.map((g) => g.color));

export function colorOfGap(cause: number): Rgba {
  return gapColors[cause] ?? gapColors[GapCause.Other]!;
}

/** The gap legend, in GapCause order. */
export const gapLegend: readonly LegendEntry[] = gapSpec.map((g) => ({
  id: g.id,
  label: g.label,
  color: g.color,
  css: cssColor(g.color),
  kinds: [],
}));

/** Per track, gap indices sorted by start, for window queries. */
export class GapIndex {
  private readonly byTrack = new Map<number, Uint32Array>();
  private readonly maxDurNsByTrack = new Map<number, number>();

  constructor(readonly gaps: GapTable) {
    const lists = new Map<number, number[]>();
    for (let i = 0; i < gaps.count; i++) {
      const track = gaps.track[i]!;
      let list = lists.get(track);
      if (list === undefined) {
        list = [];
        lists.set(track, list);
      }
      list.push(i);
      const durNs = gaps.endNs[i]! - gaps.startNs[i]!;
      if (durNs > (this.maxDurNsByTrack.get(track) ?? 0)) {
        this.maxDurNsByTrack.set(track, durNs);
      }
    }
    for (const [track, list] of lists) {
      const order = Uint32Array.from(list);
      order.sort((a, b) => gaps.startNs[a]! - gaps.startNs[b]! || a - b);
      this.byTrack.set(track, order);
    }
  }

  hasTrack(track: number): boolean {
    return this.byTrack.has(track);
  }

  /** Gap indices of `track` whose span may reach [fromNs, toNs] (a superset), in start order. */
  inWindow(track: number, fromNs: number, toNs: number): Uint32Array {
    const order = this.byTrack.get(track);
    if (order === undefined) {
      return emptyIndices;
    }
    const starts = this.gaps.startNs;
    const lookBackNs = this.maxDurNsByTrack.get(track) ?? 0;
    return order.subarray(
      lowerBoundOf(order, starts, fromNs - lookBackNs),
      upperBoundOf(order, starts, toNs),
    );
  }
}

const emptyIndices = new Uint32Array(0);
