import type { Trace } from '@streamscope/trace';
import { RangeKind } from '@streamscope/trace';

/**
 * What each host thread was doing, as nested ranges: NVTX push/pop ranges and the kineto CPU ops,
 * user annotations and Python functions the importers store as push/pop ranges on host-thread
 * tracks. Start/end ranges (which may cross threads and do not nest) and marks are left out.
 * Per track the ranges are sorted by start (longer first at equal starts) with a parent link
 * each, so "the innermost range around a time" is a binary search and a short walk up.
 */
export class HostRanges {
  /** Track t's ranges are positions [trackFrom[t], trackFrom[t + 1]). */
  private readonly trackFrom: Int32Array;
  /** Per position: the range index in `trace.ranges`, its start and end (ns). */
  private readonly range: Uint32Array;
  private readonly startNs: Float64Array;
  private readonly endNs: Float64Array;
  /** Per position: the position of the enclosing range on the same track, or -1. */
  private readonly parent: Int32Array;
  /** Per range index: its position, or -1 for ranges left out. */
  private readonly positionOf: Int32Array;

  constructor(trace: Trace) {
    const cols = trace.ranges.columns();
    const trackCount = trace.tracks.length;
    const isHost = trace.tracks.map((t) => t.kind === 'host-thread');
    const keep = (i: number): boolean =>
      cols.kind[i] === RangeKind.PushPop && isHost[cols.track[i]!] === true;
    const counts = new Int32Array(trackCount + 1);
    for (let i = 0; i < cols.count; i++) {
      if (keep(i)) {
        counts[cols.track[i]! + 1]!++;
      }
    }
    this.trackFrom = new Int32Array(trackCount + 1);
    for (let t = 0; t < trackCount; t++) {
      this.trackFrom[t + 1] = this.trackFrom[t]! + counts[t + 1]!;
    }
    const total = this.trackFrom[trackCount]!;
    const fill = this.trackFrom.slice(0, trackCount);
    const order = new Uint32Array(total);
    for (let i = 0; i < cols.count; i++) {
      if (keep(i)) {
        order[fill[cols.track[i]!]!++] = i;
      }
    }
    for (let t = 0; t < trackCount; t++) {
      sortSegment(order.subarray(this.trackFrom[t], this.trackFrom[t + 1]), cols);
    }
    this.range = order;
    this.positionOf = new Int32Array(cols.count).fill(-1);
    for (let p = 0; p < total; p++) {
      this.positionOf[order[p]!] = p;
    }
    this.startNs = new Float64Array(total);
    this.endNs = new Float64Array(total);
    for (let p = 0; p < total; p++) {
      this.startNs[p] = cols.startNs[order[p]!]!;
      this.endNs[p] = cols.endNs[order[p]!]!;
    }
    this.parent = new Int32Array(total).fill(-1);
    const stack: number[] = [];
    for (let t = 0; t < trackCount; t++) {
      stack.length = 0;
      for (let p = this.trackFrom[t]!; p < this.trackFrom[t + 1]!; p++) {
        while (stack.length > 0 && this.endNs[stack[stack.length - 1]!]! <= this.startNs[p]!) {
          stack.pop();
        }
        this.parent[p] = stack.length > 0 ? stack[stack.length - 1]! : -1;
        stack.push(p);
      }
    }
  }

  /** How many ranges the index holds. */
  get count(): number {
    return this.range.length;
  }

  /**
   * The innermost range on `track` that covers at least half of [fromNs, toNs] (the whole
   * instant when the interval is empty), as an index into `trace.ranges`; -1 when none does.
   * A range covering half of an interval contains its midpoint, and the ranges containing one
   * time nest: start from the innermost of those and walk outwards.
   */
  innermostCovering(track: number, fromNs: number, toNs: number): number {
    if (track + 1 >= this.trackFrom.length) {
      return -1;
    }
    const lenNs = Math.max(0, toNs - fromNs);
    const midNs = fromNs + lenNs / 2;
    let p = this.lastStartingAtOrBefore(track, midNs);
    while (p >= 0 && this.endNs[p]! < midNs) {
      p = this.parent[p]!;
    }
    while (p >= 0) {
      const coveredNs = Math.min(this.endNs[p]!, toNs) - Math.max(this.startNs[p]!, fromNs);
      if (coveredNs * 2 >= lenNs) {
        return this.range[p]!;
      }
      p = this.parent[p]!;
    }
    return -1;
  }

  /** The range enclosing `range` (indices into `trace.ranges`) on its thread, or -1. */
  enclosing(range: number): number {
    const p = this.positionOf[range] ?? -1;
    const up = p >= 0 ? this.parent[p]! : -1;
    return up >= 0 ? this.range[up]! : -1;
  }

  /** Innermost range on `track` containing `timeNs`, or -1. */
  innermostAt(track: number, timeNs: number): number {
    return this.innermostCovering(track, timeNs, timeNs);
  }

  /** Position of the last range on `track` starting at or before `timeNs`, or -1. */
  private lastStartingAtOrBefore(track: number, timeNs: number): number {
    const first = this.trackFrom[track]!;
    let lo = first;
    let hi = this.trackFrom[track + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.startNs[mid]! <= timeNs) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo - 1 >= first ? lo - 1 : -1;
  }
}

/** Whether range a goes before range b: earlier start, or the longer (enclosing) one first. */
function before(
  cols: { readonly startNs: Float64Array; readonly endNs: Float64Array },
  a: number,
  b: number,
): boolean {
  return (
    cols.startNs[a]! < cols.startNs[b]! ||
    (cols.startNs[a] === cols.startNs[b] && cols.endNs[a]! > cols.endNs[b]!)
  );
}

/**
 * Sorts one track's range indices by start, longer (enclosing) ranges first at equal starts.
 * Producers append a range when it ends, so an enclosing range comes after what it encloses:
 * nearly sorted. Insertion sort moves each such range back past its children, linear in
 * practice; past a budget of moves it gives up for the general sort.
 */
function sortSegment(
  segment: Uint32Array,
  cols: { readonly startNs: Float64Array; readonly endNs: Float64Array },
): void {
  let budget = 16 * segment.length + 1024;
  for (let k = 1; k < segment.length; k++) {
    const r = segment[k]!;
    let at = k;
    while (at > 0 && before(cols, r, segment[at - 1]!)) {
      segment[at] = segment[at - 1]!;
      at--;
      if (--budget === 0) {
        segment[at] = r;
        segment.sort(
          (a, b) => cols.startNs[a]! - cols.startNs[b]! || cols.endNs[b]! - cols.endNs[a]!,
        );
        return;
      }
    }
    segment[at] = r;
  }
}

/** Ranges whose name matches `pattern`, by start (any track, every kind but marks). */
export function rangesNamed(trace: Trace, pattern: RegExp): Uint32Array {
  const cols = trace.ranges.columns();
  const matches = new Map<number, boolean>();
  const picked: number[] = [];
  for (let i = 0; i < cols.count; i++) {
    if (cols.kind[i] === RangeKind.Mark) {
      continue;
    }
    const nameId = cols.nameId[i]!;
    let hit = matches.get(nameId);
    if (hit === undefined) {
      pattern.lastIndex = 0;
      hit = pattern.test(trace.strings.get(nameId));
      matches.set(nameId, hit);
    }
    if (hit) {
      picked.push(i);
    }
  }
  return Uint32Array.from(picked).sort(
    (a, b) => cols.startNs[a]! - cols.startNs[b]! || cols.endNs[b]! - cols.endNs[a]! || a - b,
  );
}
