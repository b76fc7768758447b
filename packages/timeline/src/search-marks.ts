import type { Trace } from '@streamscope/trace';
import { lowerBoundOf, upperBoundOf } from '@streamscope/trace';

/** Search matches per track, sorted by start, for drawing the visible ones quickly. */
export class SearchMarks {
  private readonly byTrack = new Map<number, Uint32Array>();
  private readonly maxDurNsByTrack = new Map<number, number>();
  readonly count: number;

  constructor(
    trace: Trace,
    matches: ArrayLike<number>,
    private readonly startNs: Float64Array = trace.ops.columns().startNs,
  ) {
    const ops = trace.ops.columns();
    const lists = new Map<number, number[]>();
    let count = 0;
    for (let k = 0; k < matches.length; k++) {
      const op = matches[k]!;
      if (!(op >= 0 && op < ops.count)) {
        continue;
      }
      count++;
      const track = ops.track[op]!;
      let list = lists.get(track);
      if (list === undefined) {
        list = [];
        lists.set(track, list);
      }
      list.push(op);
      const durNs = ops.endNs[op]! - ops.startNs[op]!;
      if (durNs > (this.maxDurNsByTrack.get(track) ?? 0)) {
        this.maxDurNsByTrack.set(track, durNs);
      }
    }
    for (const [track, list] of lists) {
      const order = Uint32Array.from(list);
      order.sort((a, b) => ops.startNs[a]! - ops.startNs[b]! || a - b);
      this.byTrack.set(track, order);
    }
    this.count = count;
  }

  /** Matching ops of `track` that may reach [fromNs, toNs] (a superset), in start order. */
  inWindow(track: number, fromNs: number, toNs: number): Uint32Array {
    const order = this.byTrack.get(track);
    if (order === undefined) {
      return empty;
    }
    const lookBackNs = this.maxDurNsByTrack.get(track) ?? 0;
    return order.subarray(
      lowerBoundOf(order, this.startNs, fromNs - lookBackNs),
      upperBoundOf(order, this.startNs, toNs),
    );
  }
}

const empty = new Uint32Array(0);
