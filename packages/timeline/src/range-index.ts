import type { Trace } from '@streamscope/trace';
import { lowerBoundOf, upperBoundOf } from '@streamscope/trace';

/** NVTX ranges per (track, depth), sorted by start, for window queries. Rebuilt as ranges grow. */
export class RangeIndex {
  private readonly byLane = new Map<number, Uint32Array>();
  private readonly maxDurNsByLane = new Map<number, number>();
  readonly rangeCount: number;
  private readonly starts: Float64Array;

  constructor(trace: Trace) {
    const ranges = trace.ranges.columns();
    this.rangeCount = ranges.count;
    this.starts = ranges.startNs;
    const lists = new Map<number, number[]>();
    for (let i = 0; i < ranges.count; i++) {
      const key = laneKey(ranges.track[i]!, ranges.depth[i]!);
      let list = lists.get(key);
      if (list === undefined) {
        list = [];
        lists.set(key, list);
      }
      list.push(i);
      const durNs = ranges.endNs[i]! - ranges.startNs[i]!;
      if (durNs > (this.maxDurNsByLane.get(key) ?? 0)) {
        this.maxDurNsByLane.set(key, durNs);
      }
    }
    for (const [key, list] of lists) {
      const order = Uint32Array.from(list);
      order.sort((a, b) => ranges.startNs[a]! - ranges.startNs[b]! || a - b);
      this.byLane.set(key, order);
    }
  }

  /** Range indices of one lane that may reach [fromNs, toNs] (a superset), in start order. */
  inWindow(track: number, depth: number, fromNs: number, toNs: number): Uint32Array {
    const key = laneKey(track, depth);
    const order = this.byLane.get(key);
    if (order === undefined) {
      return empty;
    }
    const starts = this.starts;
    const lookBackNs = this.maxDurNsByLane.get(key) ?? 0;
    return order.subarray(
      lowerBoundOf(order, starts, fromNs - lookBackNs),
      upperBoundOf(order, starts, toNs),
    );
  }
}

const empty = new Uint32Array(0);

function laneKey(track: number, depth: number): number {
  return track * 256 + depth;
}
