/**
 * The renderer's input (STYLE.md B.4): intervals as Float32 offsets from `baseNs`, so Float32
 * keeps ns precision within a frame's buffered bounds while absolute times stay in Float64.
 */
export interface IntervalBuffers {
  /** ns relative to the frame's baseNs. */
  readonly starts: Float32Array;
  readonly ends: Float32Array;
  /** Index into the layout's rows. */
  readonly rows: Uint16Array;
  /** Sub-lane within the row (NVTX depth); 0 elsewhere. */
  readonly lanes: Uint8Array;
  /** 0xRRGGBBAA; merged buckets carry their density in the alpha byte. */
  readonly colors: Uint32Array;
  /**
   * A merged bucket's second colour, where another class kept it at least a third as busy as
   * the first (drawn as the lower half, so mixed kinds stay visible); 0 = one colour.
   */
  readonly mixes: Uint32Array;
  /** Op (or range, or gap) index for an exact interval; -1 for a merged bucket of several. */
  readonly items: Int32Array;
  /** How many source intervals this rectangle stands for. */
  readonly counts: Uint32Array;
  readonly count: number;
}

/**
 * A growable set of IntervalBuffers plus a per-row index (first entry, count, longest
 * duration), filled row by row. Arrays grow geometrically and are reused across rebuilds.
 */
export class IntervalBuilder implements IntervalBuffers {
  starts = new Float32Array(1024);
  ends = new Float32Array(1024);
  rows = new Uint16Array(1024);
  lanes = new Uint8Array(1024);
  colors = new Uint32Array(1024);
  mixes = new Uint32Array(1024);
  items = new Int32Array(1024);
  counts = new Uint32Array(1024);
  count = 0;
  /** Per layout row: first entry, number of entries, longest (end - start) in ns. */
  rowFirst = new Uint32Array(64);
  rowCount = new Uint32Array(64);
  rowMaxDurNs = new Float32Array(64);

  /** Empties the buffers (keeping their capacity) for `rowCount` rows. */
  reset(rowCount: number): void {
    this.count = 0;
    if (this.rowFirst.length < rowCount) {
      const n = Math.max(rowCount, this.rowFirst.length * 2);
      this.rowFirst = new Uint32Array(n);
      this.rowCount = new Uint32Array(n);
      this.rowMaxDurNs = new Float32Array(n);
    } else {
      this.rowFirst.fill(0);
      this.rowCount.fill(0);
      this.rowMaxDurNs.fill(0);
    }
  }

  /** Marks the start of `row`'s entries: rows are filled one after another. */
  beginRow(row: number): void {
    this.rowFirst[row] = this.count;
    this.rowCount[row] = 0;
  }

  endRow(row: number): void {
    this.rowCount[row] = this.count - this.rowFirst[row]!;
  }

  push(
    row: number,
    lane: number,
    startRel: number,
    endRel: number,
    color: number,
    item: number,
    count: number,
  ): void {
    const i = this.count;
    if (i >= this.starts.length) {
      this.grow(i + 1);
    }
    this.starts[i] = startRel;
    this.ends[i] = endRel;
    this.rows[i] = row;
    this.lanes[i] = lane;
    this.colors[i] = color;
    this.mixes[i] = 0;
    this.items[i] = item;
    this.counts[i] = count;
    this.count = i + 1;
    const durNs = endRel - startRel;
    if (durNs > this.rowMaxDurNs[row]!) {
      this.rowMaxDurNs[row] = durNs;
    }
  }

  /** Widens the last entry to `endRel` and adds `count` to it (adjacent buckets merging). */
  extendLast(endRel: number, count: number): void {
    const i = this.count - 1;
    if (endRel > this.ends[i]!) {
      this.ends[i] = endRel;
    }
    this.counts[i] = this.counts[i]! + count;
    this.items[i] = -1;
    const durNs = this.ends[i]! - this.starts[i]!;
    const row = this.rows[i]!;
    if (durNs > this.rowMaxDurNs[row]!) {
      this.rowMaxDurNs[row] = durNs;
    }
  }

  /** Bytes held (capacity, not count): what the renderer costs beyond the trace. */
  byteSize(): number {
    return (
      this.starts.byteLength +
      this.ends.byteLength +
      this.rows.byteLength +
      this.lanes.byteLength +
      this.colors.byteLength +
      this.mixes.byteLength +
      this.items.byteLength +
      this.counts.byteLength +
      this.rowFirst.byteLength * 3
    );
  }

  private grow(need: number): void {
    const n = Math.max(need, this.starts.length * 2);
    this.starts = growF32(this.starts, n);
    this.ends = growF32(this.ends, n);
    const rows = new Uint16Array(n);
    rows.set(this.rows);
    this.rows = rows;
    const lanes = new Uint8Array(n);
    lanes.set(this.lanes);
    this.lanes = lanes;
    const colors = new Uint32Array(n);
    colors.set(this.colors);
    this.colors = colors;
    const mixes = new Uint32Array(n);
    mixes.set(this.mixes);
    this.mixes = mixes;
    const items = new Int32Array(n);
    items.set(this.items);
    this.items = items;
    const counts = new Uint32Array(n);
    counts.set(this.counts);
    this.counts = counts;
  }
}

function growF32(a: Float32Array, n: number): Float32Array<ArrayBuffer> {
  const b = new Float32Array(n);
  b.set(a);
  return b;
}

/**
 * First entry of `row` that may reach [fromRel, …]: a binary search on the row's sorted starts,
 * looking back by its longest entry, so [first, rowEndBefore) is a superset of the visible ones.
 */
export function rowFirstFrom(b: IntervalBuilder, row: number, fromRel: number): number {
  const first = b.rowFirst[row] ?? 0;
  const end = first + (b.rowCount[row] ?? 0);
  return searchStarts(b.starts, first, end, fromRel - (b.rowMaxDurNs[row] ?? 0), false);
}

/** One past the last entry of `row` that starts at or before `toRel`. */
export function rowEndBefore(b: IntervalBuilder, row: number, toRel: number): number {
  const first = b.rowFirst[row] ?? 0;
  const end = first + (b.rowCount[row] ?? 0);
  return searchStarts(b.starts, first, end, toRel, true);
}

/** First k in [lo, hi) with starts[k] >= value (or > value when `strict`). */
function searchStarts(
  starts: Float32Array,
  lo: number,
  hi: number,
  value: number,
  strict: boolean,
): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const s = starts[mid]!;
    if (s < value || (strict && s === value)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/**
 * Entries of `row` that may reach the window start from here: a binary search on the row's
 * sorted starts. A row of several lanes (NVTX depths) holds one sorted run per lane but is not
 * sorted as a whole, so it is read whole (its merged rectangles are bounded by pixels per lane).
 */
export function cullFirst(
  b: IntervalBuilder,
  row: number,
  laneCount: number,
  fromRel: number,
): number {
  return laneCount > 1 ? (b.rowFirst[row] ?? 0) : rowFirstFrom(b, row, fromRel);
}

/** One past the last entry of `row` that may reach the window (see `cullFirst`). */
export function cullEnd(b: IntervalBuilder, row: number, laneCount: number, toRel: number): number {
  return laneCount > 1
    ? (b.rowFirst[row] ?? 0) + (b.rowCount[row] ?? 0)
    : rowEndBefore(b, row, toRel);
}
