import type { Trace } from '@streamscope/trace';

/**
 * Op indices in start order over all tracks: a merge of the tracks' own start orders (each
 * already sorted), so the cost is ops × log(tracks), with no comparator sort of millions.
 */
export function startOrder(trace: Trace): Uint32Array {
  const startNs = trace.ops.columns().startNs;
  const lists = trace.tracks.map((_, t) => trace.ops.trackOrder(t)).filter((l) => l.length > 0);
  const pos = new Uint32Array(lists.length);
  // A binary min-heap of list indices keyed by the start of each list's next op.
  const heap: number[] = lists.map((_, k) => k);
  const keyOf = (k: number): number => startNs[lists[k]![pos[k]!]!]!;
  const less = (a: number, b: number): boolean => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    return ka < kb || (ka === kb && a < b);
  };
  const down = (from: number): void => {
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l]!, heap[m]!)) {
        m = l;
      }
      if (r < heap.length && less(heap[r]!, heap[m]!)) {
        m = r;
      }
      if (m === i) {
        return;
      }
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) {
    down(i);
  }
  const out = new Uint32Array(trace.ops.count);
  let k = 0;
  while (heap.length > 0) {
    const top = heap[0]!;
    out[k++] = lists[top]![pos[top]!]!;
    pos[top]!++;
    if (pos[top] === lists[top]!.length) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    down(0);
  }
  return out;
}

/**
 * Range indices grouped by track (a stable counting sort), each track's in start order (sorted
 * only where they did not arrive so), and where each track's begin: `order[trackFirst[t]…]`.
 */
export function rangeTrackOrder(trace: Trace): { order: Uint32Array; trackFirst: Float64Array } {
  const ranges = trace.ranges.columns();
  const trackCount = trace.tracks.length;
  const trackFirst = new Float64Array(trackCount + 1);
  for (let i = 0; i < ranges.count; i++) {
    trackFirst[ranges.track[i]! + 1]!++;
  }
  for (let t = 0; t < trackCount; t++) {
    trackFirst[t + 1] = trackFirst[t]! + trackFirst[t + 1]!;
  }
  const order = new Uint32Array(ranges.count);
  const fillAt = trackFirst.slice(0, trackCount);
  for (let i = 0; i < ranges.count; i++) {
    order[fillAt[ranges.track[i]!]!++] = i;
  }
  const starts = ranges.startNs;
  for (let t = 0; t < trackCount; t++) {
    const list = order.subarray(trackFirst[t], trackFirst[t + 1]);
    let sorted = true;
    for (let k = 1; k < list.length && sorted; k++) {
      sorted = starts[list[k - 1]!]! <= starts[list[k]!]!;
    }
    if (!sorted) {
      list.sort((a, b) => starts[a]! - starts[b]! || a - b);
    }
  }
  return { order, trackFirst };
}
