import { GrowableColumn } from './growable.ts';
import { lowerBoundOf, upperBoundOf } from './order-search.ts';

/** One op as a producer hands it over. Reuse one object per producer: the table keeps no reference. */
export interface OpInput {
  startNs: number;
  endNs: number;
  track: number;
  kind: number;
  nameId: number;
  /** Bytes moved or set; 0 where it does not apply. */
  bytes?: number;
  /** `packMemKinds(src, dst)`; 0 where it does not apply. */
  memKinds?: number;
  /** Producer's correlation id (CUPTI, nsys, kineto); 0 = none. Joins API calls to GPU ops. */
  correlationId?: number;
  /** Kernel → launch config index (`LaunchTable`); event ops → event id; graph launch → graph id. */
  refId?: number;
  /** `OpFlag` bits. */
  flags?: number;
}

/** A consistent, read-only prefix of the op table: every column has exactly `count` entries. */
export interface OpColumns {
  readonly count: number;
  /** ns since the trace origin; integers (exact in Float64 below 2^53 ns, about 104 days). */
  readonly startNs: Float64Array;
  readonly endNs: Float64Array;
  /** Bytes moved or set (Float64: copies can exceed 4 GiB). */
  readonly bytes: Float64Array;
  readonly track: Uint16Array;
  readonly nameId: Uint32Array;
  readonly correlationId: Uint32Array;
  readonly refId: Uint32Array;
  readonly kind: Uint8Array;
  readonly memKinds: Uint8Array;
  readonly flags: Uint8Array;
}

export const noRef = 0xffffffff;
export const maxTracks = 0xffff;

/**
 * Ops as columns, in arrival order, plus a per-track index sorted by start. Appends never move
 * what a reader already holds (see GrowableColumn), so a live run's readers always see a
 * consistent prefix.
 */
export class OpTable {
  private n = 0;
  private readonly startNsCol = new GrowableColumn(Float64Array);
  private readonly endNsCol = new GrowableColumn(Float64Array);
  private readonly bytesCol = new GrowableColumn(Float64Array);
  private readonly trackCol = new GrowableColumn(Uint16Array);
  private readonly nameIdCol = new GrowableColumn(Uint32Array);
  private readonly correlationIdCol = new GrowableColumn(Uint32Array);
  private readonly refIdCol = new GrowableColumn(Uint32Array);
  private readonly kindCol = new GrowableColumn(Uint8Array);
  private readonly memKindsCol = new GrowableColumn(Uint8Array);
  private readonly flagsCol = new GrowableColumn(Uint8Array);

  /** Per track: op indices sorted by start. */
  private readonly byTrack: GrowableColumn<Uint32Array>[] = [];
  private readonly byTrackCount: number[] = [];
  /** Per track: the longest op, so window queries can look back far enough. */
  private readonly maxDurNsByTrack: number[] = [];
  private endNsMax = 0;
  private readonly unsortedTracks = new Set<number>();

  private correlationIndex: Uint32Array | undefined;
  private correlationIndexCount = -1;

  get count(): number {
    return this.n;
  }

  /** Latest end of any op (ns since origin). */
  get maxEndNs(): number {
    return this.endNsMax;
  }

  append(op: OpInput): number {
    const i = this.n;
    const need = i + 1;
    if (op.track < 0 || op.track > maxTracks || !Number.isInteger(op.track)) {
      throw new RangeError(`op track ${op.track} is not a valid track index`);
    }
    this.startNsCol.ensure(need)[i] = op.startNs;
    this.endNsCol.ensure(need)[i] = op.endNs;
    this.bytesCol.ensure(need)[i] = op.bytes ?? 0;
    this.trackCol.ensure(need)[i] = op.track;
    this.nameIdCol.ensure(need)[i] = op.nameId;
    this.correlationIdCol.ensure(need)[i] = op.correlationId ?? 0;
    this.refIdCol.ensure(need)[i] = op.refId ?? noRef;
    this.kindCol.ensure(need)[i] = op.kind;
    this.memKindsCol.ensure(need)[i] = op.memKinds ?? 0;
    this.flagsCol.ensure(need)[i] = op.flags ?? 0;
    this.indexByTrack(i, op.track, op.startNs, op.endNs);
    this.n = need;
    return i;
  }

  /**
   * Appends `count` ops given as columns (the codec's decode path): one typed-array copy per
   * column instead of a call per op. Tracks must already have been checked by the caller.
   */
  appendColumns(source: Omit<OpColumns, 'count'>, count: number): void {
    const first = this.n;
    const need = first + count;
    this.startNsCol.ensure(need).set(source.startNs.subarray(0, count), first);
    this.endNsCol.ensure(need).set(source.endNs.subarray(0, count), first);
    this.bytesCol.ensure(need).set(source.bytes.subarray(0, count), first);
    this.trackCol.ensure(need).set(source.track.subarray(0, count), first);
    this.nameIdCol.ensure(need).set(source.nameId.subarray(0, count), first);
    this.correlationIdCol.ensure(need).set(source.correlationId.subarray(0, count), first);
    this.refIdCol.ensure(need).set(source.refId.subarray(0, count), first);
    this.kindCol.ensure(need).set(source.kind.subarray(0, count), first);
    this.memKindsCol.ensure(need).set(source.memKinds.subarray(0, count), first);
    this.flagsCol.ensure(need).set(source.flags.subarray(0, count), first);
    for (let k = 0; k < count; k++) {
      this.indexByTrack(first + k, source.track[k]!, source.startNs[k]!, source.endNs[k]!);
    }
    this.n = need;
  }

  /**
   * Fills an empty table with `count` ops given as columns, without copying: the arrays (at least
   * `count` long; the rest is growth room) become the table's own and the caller gives them up.
   * An importer's peak memory then holds each column once.
   */
  adoptColumns(source: Omit<OpColumns, 'count'>, count: number): void {
    if (this.n !== 0) {
      throw new Error('adoptColumns fills an empty op table only');
    }
    for (const column of Object.values(source) as ArrayLike<number>[]) {
      if (column.length < count) {
        throw new RangeError(`a column holds ${column.length} values, fewer than ${count} ops`);
      }
    }
    this.startNsCol.adopt(source.startNs);
    this.endNsCol.adopt(source.endNs);
    this.bytesCol.adopt(source.bytes);
    this.trackCol.adopt(source.track);
    this.nameIdCol.adopt(source.nameId);
    this.correlationIdCol.adopt(source.correlationId);
    this.refIdCol.adopt(source.refId);
    this.kindCol.adopt(source.kind);
    this.memKindsCol.adopt(source.memKinds);
    this.flagsCol.adopt(source.flags);
    // Each track's order array is allocated once at its final size: growing them would copy
    // (and briefly double) an index as large as a column at the peak of a big import.
    const perTrack: number[] = [];
    for (let k = 0; k < count; k++) {
      const t = source.track[k]!;
      perTrack[t] = (perTrack[t] ?? 0) + 1;
    }
    perTrack.forEach((ops, t) => {
      while (this.byTrack.length <= t) {
        this.byTrack.push(new GrowableColumn(Uint32Array, 64));
        this.byTrackCount.push(0);
        this.maxDurNsByTrack.push(0);
      }
      this.byTrack[t] = new GrowableColumn(Uint32Array, ops);
    });
    // indexByTrack's work in one loop over the columns (no call per op), same results.
    const orders = this.byTrack.map((column) => column.buffer);
    const filled = this.byTrackCount;
    const maxDur = this.maxDurNsByTrack;
    const tracks = source.track;
    const starts = source.startNs;
    const ends = source.endNs;
    let endNsMax = this.endNsMax;
    for (let k = 0; k < count; k++) {
      const track = tracks[k]!;
      const startNs = starts[k]!;
      const endNs = ends[k]!;
      const order = orders[track]!;
      const at = filled[track]!;
      if (at > 0 && starts[order[at - 1]!]! > startNs) {
        this.unsortedTracks.add(track);
      }
      order[at] = k;
      filled[track] = at + 1;
      if (endNs - startNs > maxDur[track]!) {
        maxDur[track] = endNs - startNs;
      }
      if (endNs > endNsMax) {
        endNsMax = endNs;
      }
    }
    this.endNsMax = endNsMax;
    this.n = count;
  }

  private indexByTrack(i: number, track: number, startNs: number, endNs: number): void {
    while (this.byTrack.length <= track) {
      this.byTrack.push(new GrowableColumn(Uint32Array, 64));
      this.byTrackCount.push(0);
      this.maxDurNsByTrack.push(0);
    }
    const column = this.byTrack[track]!;
    const count = this.byTrackCount[track]!;
    let order = column.buffer;
    if (count >= order.length) {
      order = column.ensure(count + 1);
    }
    order[count] = i;
    this.byTrackCount[track] = count + 1;
    // Ops mostly arrive in start order per track; a track that receives one out of order is
    // re-sorted once, lazily, on its next query (an import in arbitrary order stays n log n).
    if (count > 0 && this.startNsCol.buffer[order[count - 1]!]! > startNs) {
      this.unsortedTracks.add(track);
    }
    const durNs = endNs - startNs;
    if (durNs > this.maxDurNsByTrack[track]!) {
      this.maxDurNsByTrack[track] = durNs;
    }
    if (endNs > this.endNsMax) {
      this.endNsMax = endNs;
    }
  }

  /** A consistent snapshot of every column (views, no copies). */
  columns(): OpColumns {
    const n = this.n;
    return {
      count: n,
      startNs: this.startNsCol.view(n),
      endNs: this.endNsCol.view(n),
      bytes: this.bytesCol.view(n),
      track: this.trackCol.view(n),
      nameId: this.nameIdCol.view(n),
      correlationId: this.correlationIdCol.view(n),
      refId: this.refIdCol.view(n),
      kind: this.kindCol.view(n),
      memKinds: this.memKindsCol.view(n),
      flags: this.flagsCol.view(n),
    };
  }

  get trackCount(): number {
    return this.byTrack.length;
  }

  /** Op indices of one track, sorted by start (a view; do not write). */
  trackOrder(track: number): Uint32Array {
    const column = this.byTrack[track];
    if (column === undefined) {
      return new Uint32Array(0);
    }
    const order = column.view(this.byTrackCount[track]!);
    if (this.unsortedTracks.delete(track)) {
      const starts = this.startNsCol.buffer;
      order.sort((a, b) => starts[a]! - starts[b]! || a - b);
    }
    return order;
  }

  /**
   * Positions [lo, hi) in `trackOrder(track)` that may overlap [fromNs, toNs]: a binary search
   * on starts, looking back by the track's longest op so an op that began before the window is
   * included. A superset of the overlapping ops (what a renderer's culling needs; no allocation).
   */
  trackWindowBounds(track: number, fromNs: number, toNs: number): { lo: number; hi: number } {
    const order = this.trackOrder(track);
    const starts = this.startNsCol.buffer;
    const ends = this.endNsCol.buffer;
    const lookBackNs = this.maxDurNsByTrack[track] ?? 0;
    let lo = lowerBoundOf(order, starts, fromNs - lookBackNs);
    const hi = upperBoundOf(order, starts, toNs);
    // Trim the look-back prefix to ops that really reach the window.
    while (lo < hi && ends[order[lo]!]! < fromNs) {
      lo++;
    }
    return { lo, hi };
  }

  /** Op indices of `track` that overlap [fromNs, toNs] (edges included), in start order. */
  trackOpsInWindow(track: number, fromNs: number, toNs: number): Uint32Array {
    const order = this.trackOrder(track);
    const { lo, hi } = this.trackWindowBounds(track, fromNs, toNs);
    const ends = this.endNsCol.buffer;
    const found = new Uint32Array(hi - lo);
    let k = 0;
    for (let p = lo; p < hi; p++) {
      const i = order[p]!;
      if (ends[i]! >= fromNs) {
        found[k++] = i;
      }
    }
    return found.subarray(0, k);
  }

  /** Every op index with this correlation id (API call and GPU ops), in arrival order. */
  findByCorrelation(correlationId: number): number[] {
    if (correlationId === 0) {
      return [];
    }
    const index = this.correlationIndexNow();
    const ids = this.correlationIdCol.buffer;
    const lo = lowerBoundOf(index, ids, correlationId);
    const found: number[] = [];
    for (let k = lo; k < index.length && ids[index[k]!] === correlationId; k++) {
      found.push(index[k]!);
    }
    return found;
  }

  private correlationIndexNow(): Uint32Array {
    if (this.correlationIndex === undefined || this.correlationIndexCount !== this.n) {
      const ids = this.correlationIdCol.buffer;
      let withId = 0;
      for (let i = 0; i < this.n; i++) {
        if (ids[i] !== 0) {
          withId++;
        }
      }
      const index = new Uint32Array(withId);
      let k = 0;
      for (let i = 0; i < this.n; i++) {
        if (ids[i] !== 0) {
          index[k++] = i;
        }
      }
      // Stable by arrival: ties keep index order.
      index.sort((a, b) => ids[a]! - ids[b]! || a - b);
      this.correlationIndex = index;
      this.correlationIndexCount = this.n;
    }
    return this.correlationIndex;
  }

  /** Pre-sizes every column for a bulk load of `capacity` ops. */
  reserve(capacity: number): void {
    for (const column of this.allColumns()) {
      column.ensure(capacity);
    }
  }

  /** Shrinks every column to its count, after a bulk load. */
  trim(): void {
    for (const column of this.allColumns()) {
      column.trim(this.n);
    }
    this.byTrack.forEach((column, t) => column.trim(this.byTrackCount[t]!));
  }

  /** Bytes held by the columns and the per-track index (what an op costs in memory). */
  byteSize(): number {
    let total = 0;
    for (const column of this.allColumns()) {
      total += column.buffer.byteLength;
    }
    for (const column of this.byTrack) {
      total += column.buffer.byteLength;
    }
    return total;
  }

  private allColumns(): GrowableColumn<Float64Array | Uint32Array | Uint16Array | Uint8Array>[] {
    return [
      this.startNsCol,
      this.endNsCol,
      this.bytesCol,
      this.trackCol,
      this.nameIdCol,
      this.correlationIdCol,
      this.refIdCol,
      this.kindCol,
      this.memKindsCol,
      this.flagsCol,
    ];
  }
}
