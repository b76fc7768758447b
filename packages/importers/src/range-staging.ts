import type { RangeInput, Trace } from '@streamscope/trace';
import { RangeKind } from '@streamscope/trace';
import { StagingColumn } from './staging-columns.ts';
import type { Warnings } from './warnings.ts';
import { counted } from './warnings.ts';

const unended = -1;

/** NVTX-style ranges as importers find them, placed in the trace once lanes and origin are known. */
export class RangeStaging {
  private n = 0;
  private readonly start = new StagingColumn(Float64Array, 256);
  private readonly end = new StagingColumn(Float64Array, 256);
  private readonly lane = new StagingColumn(Uint32Array, 256);
  private readonly name = new StagingColumn(Int32Array, 256);
  private readonly domain = new StagingColumn(Int32Array, 256);
  private readonly kind = new StagingColumn(Uint8Array, 256);

  get count(): number {
    return this.n;
  }

  /** Ranges the columns hold before they must grow. */
  get room(): number {
    return this.start.data.length;
  }

  /** Pre-sizes the columns for about `ranges` ranges (a hint: they still grow past it). */
  reserve(ranges: number): void {
    const room = Math.ceil(ranges);
    if (room <= this.room) {
      return;
    }
    for (const column of [this.start, this.end, this.lane, this.name, this.domain, this.kind]) {
      column.resize(room, this.n);
    }
  }

  /** A range on a host lane; `endNs` < 0 when it never ended. */
  add(
    lane: number,
    startNs: number,
    endNs: number,
    nameRef: number,
    domainRef: number,
    kind: number,
  ): void {
    const i = this.n;
    if (i >= this.start.data.length) {
      this.reserve(Math.max(i + 1, this.room * 2));
    }
    // Each column's store site sees one array type (a shared `at` would see all of them).
    this.start.data[i] = startNs;
    this.end.data[i] = endNs < 0 ? unended : endNs;
    this.lane.data[i] = lane;
    this.name.data[i] = nameRef;
    this.domain.data[i] = domainRef;
    this.kind.data[i] = kind;
    this.n = i + 1;
  }

  earliestNs(): number {
    let min = Infinity;
    for (let i = 0; i < this.n; i++) {
      min = Math.min(min, this.start.data[i]!);
    }
    return min;
  }

  markLanes(used: Uint8Array): void {
    for (let i = 0; i < this.n; i++) {
      used[this.lane.data[i]!] = 1;
    }
  }

  /**
   * Appends the ranges sorted per lane by start, with their nesting depth. Ranges that never
   * ended (no pop, no end record) run to `lastOpEndNs` or the last range end, whichever is later.
   * Column by column: each of the trace's columns is made in placed order from its staging
   * column, which is released at once, so a big import holds the staging, the order and one
   * column beyond them (not the staging and the whole table: 18.5M ranges of the 5M-GPU-op
   * kineto trace are 0.5 GB each way).
   */
  appendTo(
    trace: Trace,
    trackOf: Uint32Array,
    originNs: number,
    lastOpEndNs: number,
    resolveName: (ref: number) => number,
    warnings: Warnings,
  ): void {
    const n = this.n;
    this.closeUnended(lastOpEndNs, warnings);
    const order = rangeOrder(this.lane.data, this.start.data, this.end.data, n);
    const depth = this.placedDepths(order);
    const startNs = placedTimes(this.start, order, originNs);
    const endNs = placedTimes(this.end, order, originNs);
    const track = placedTracks(this.lane, order, trackOf);
    const nameId = placedNames(this.name, order, resolveName);
    const domainId = placedNames(this.domain, order, resolveName);
    const kind = new Uint8Array(n);
    const kinds = this.kind.data;
    for (let k = 0; k < n; k++) {
      kind[k] = kinds[order[k]!]!;
    }
    this.kind.release();
    const columns = { startNs, endNs, track, nameId, domainId, depth, kind };
    if (trace.ranges.count === 0) {
      trace.ranges.adoptColumns(columns, n);
      return;
    }
    trace.ranges.reserve(n);
    const row: RangeInput = { ...emptyRange };
    for (let k = 0; k < n; k++) {
      row.startNs = startNs[k]!;
      row.endNs = endNs[k]!;
      row.track = track[k]!;
      row.nameId = nameId[k]!;
      row.domainId = domainId[k]!;
      row.depth = depth[k]!;
      row.kind = kind[k]! as RangeKind;
      trace.ranges.append(row);
    }
  }

  /** Ends what never ended (see appendTo) and ends before starts at their start. */
  private closeUnended(lastOpEndNs: number, warnings: Warnings): void {
    const n = this.n;
    const start = this.start.data;
    const end = this.end.data;
    let lastNs = lastOpEndNs;
    for (let i = 0; i < n; i++) {
      lastNs = Math.max(lastNs, end[i]!);
    }
    let open = 0;
    for (let i = 0; i < n; i++) {
      if (end[i] === unended && this.kind.data[i] !== RangeKind.Mark) {
        end[i] = lastNs;
        open++;
      } else if (end[i] === unended || end[i]! < start[i]!) {
        end[i] = start[i]!;
      }
    }
    if (open > 0) {
      warnings.add(`${counted(open, 'range')} never ended; drawn to the end of the trace`);
    }
  }

  /** Each range's nesting depth (at most 255), in placed order: per lane, the push/pop ranges still open. */
  private placedDepths(order: Uint32Array): Uint8Array {
    const n = this.n;
    const start = this.start.data;
    const end = this.end.data;
    const lane = this.lane.data;
    const kinds = this.kind.data;
    const depths = new Uint8Array(n);
    const stack = new OpenRanges();
    let currentLane = -1;
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      if (lane[i] !== currentLane) {
        stack.clear();
        currentLane = lane[i]!;
      }
      if (kinds[i] === RangeKind.PushPop) {
        const depth = stack.depthFor(start[i]!, end[i]!);
        stack.push(end[i]!, depth);
        depths[k] = Math.min(255, depth);
      }
    }
    return depths;
  }
}

const emptyRange: RangeInput = {
  startNs: 0,
  endNs: 0,
  track: 0,
  nameId: 0,
  domainId: 0,
  depth: 0,
  kind: RangeKind.PushPop,
};

/** A staging time column in placed order, moved to the origin; the staging column released. */
function placedTimes(
  column: StagingColumn<Float64Array>,
  order: Uint32Array,
  originNs: number,
): Float64Array {
  const from = column.data;
  const placed = new Float64Array(order.length);
  for (let k = 0; k < placed.length; k++) {
    placed[k] = from[order[k]!]! - originNs;
  }
  column.release();
  return placed;
}

/** Each range's track in placed order, from its lane; the lane column released. */
function placedTracks(
  column: StagingColumn<Uint32Array>,
  order: Uint32Array,
  trackOf: Uint32Array,
): Uint16Array {
  const lanes = column.data;
  const placed = new Uint16Array(order.length);
  for (let k = 0; k < placed.length; k++) {
    placed[k] = trackOf[lanes[order[k]!]!]!;
  }
  column.release();
  return placed;
}

/** Name refs resolved to string ids in placed order (ref 0, no domain, stays 0); the refs released. */
function placedNames(
  column: StagingColumn<Int32Array>,
  order: Uint32Array,
  resolveName: (ref: number) => number,
): Uint32Array {
  const refs = column.data;
  const placed = new Uint32Array(order.length);
  for (let k = 0; k < placed.length; k++) {
    const ref = refs[order[k]!]!;
    placed[k] = ref === 0 ? 0 : resolveName(ref);
  }
  column.release();
  return placed;
}

/**
 * The order in which ranges are placed: by lane, then start, then the longer first, then as
 * staged. A stable counting sort by lane (ranges arrive per thread mostly in start order), then
 * a comparison sort of only the lanes whose ranges are not already in that order.
 */
export function rangeOrder(
  lane: Uint32Array,
  start: Float64Array,
  end: Float64Array,
  n: number,
): Uint32Array {
  let lanes = 0;
  for (let i = 0; i < n; i++) {
    lanes = Math.max(lanes, lane[i]! + 1);
  }
  const first = new Uint32Array(lanes + 1);
  for (let i = 0; i < n; i++) {
    first[lane[i]! + 1]!++;
  }
  for (let l = 0; l < lanes; l++) {
    first[l + 1]! += first[l]!;
  }
  const order = new Uint32Array(n);
  const next = first.slice(0, lanes);
  for (let i = 0; i < n; i++) {
    order[next[lane[i]!]!++] = i;
  }
  // Within a lane the staged order already breaks ties (a - b): only start and end decide.
  const before = (a: number, b: number): number =>
    start[a]! - start[b]! || end[b]! - end[a]! || a - b;
  for (let l = 0; l < lanes; l++) {
    const from = first[l]!;
    const to = first[l + 1]!;
    let sorted = true;
    for (let k = from + 1; k < to; k++) {
      if (before(order[k - 1]!, order[k]!) > 0) {
        sorted = false;
        break;
      }
    }
    if (!sorted) {
      order.subarray(from, to).sort(before);
    }
  }
  return order;
}

/**
 * The push/pop ranges open on one lane, in the order they began. A range goes one row below the
 * deepest open range that holds it whole, so a range that outlives the ranges it began in (a
 * PyTorch `with_stack` trace: `record_function` and `ProfilerStep#N` begin inside Python's
 * `__enter__` and `step()` frames and outlive them) sits below what holds it, not below those
 * frames, and leaves no rows empty under it once they end (it shares their rows only while they
 * run, a few µs). Ranges that nest get the depth a plain stack gives them.
 */
class OpenRanges {
  private size = 0;
  private ends = new Float64Array(64);
  private depths = new Int32Array(64);
  /** The greatest depth at or below each place: where to stop looking for a deeper holder. */
  private deepestBelow = new Int32Array(64);

  clear(): void {
    this.size = 0;
  }

  /** The depth of a range over [startNs, endNs), the ranges ended by `startNs` dropped from the top. */
  depthFor(startNs: number, endNs: number): number {
    const { ends, depths, deepestBelow } = this;
    let top = this.size - 1;
    while (top >= 0 && ends[top]! <= startNs) {
      top--;
    }
    this.size = top + 1;
    if (top < 0) {
      return 0;
    }
    // Nested (the common case): the top holds it and nothing below is deeper.
    if (ends[top]! >= endNs && depths[top] === deepestBelow[top]) {
      return depths[top]! + 1;
    }
    // Ranges that ended under one still open stay until it is dropped: they end before
    // `startNs` and so never hold the range.
    let holder = -1;
    for (let k = top; k >= 0 && deepestBelow[k]! > holder; k--) {
      if (ends[k]! >= endNs && ends[k]! > startNs && depths[k]! > holder) {
        holder = depths[k]!;
      }
    }
    return holder + 1;
  }

  push(endNs: number, depth: number): void {
    const at = this.size;
    if (at === this.ends.length) {
      this.grow();
    }
    this.ends[at] = endNs;
    this.depths[at] = depth;
    this.deepestBelow[at] = at === 0 ? depth : Math.max(this.deepestBelow[at - 1]!, depth);
    this.size = at + 1;
  }

  private grow(): void {
    const ends = new Float64Array(this.ends.length * 2);
    const depths = new Int32Array(ends.length);
    const deepestBelow = new Int32Array(ends.length);
    ends.set(this.ends);
    depths.set(this.depths);
    deepestBelow.set(this.deepestBelow);
    this.ends = ends;
    this.depths = depths;
    this.deepestBelow = deepestBelow;
  }
}
