import { opKindName } from '@streamscope/trace';

// The sums behind a tiled view's area and search-marks answers (trace-query.ts), fed op by op
// from whichever source holds the ops: a decoded trace's columns, or a tiles file's rows
// (tile-queries.ts). One accumulator for both, so the two answer alike by construction.

/** Most (kind, name) groups an area answer lists, largest total time first. */
export const maxAreaGroups = 200;

export interface AreaKindRow {
  readonly kind: string;
  readonly count: number;
  readonly sumNs: number;
}

export interface AreaTrackRow {
  readonly track: number;
  readonly count: number;
  /** Time in [fromNs, toNs] covered by at least one of the track's ops. */
  readonly busyNs: number;
  readonly kinds: readonly AreaKindRow[];
}

export interface AreaGroupRow {
  readonly kind: string;
  readonly name: string;
  readonly count: number;
  readonly sumNs: number;
  readonly avgNs: number;
  readonly minNs: number;
  readonly maxNs: number;
}

export interface AreaAnswer {
  readonly fromNs: number;
  readonly toNs: number;
  readonly count: number;
  readonly tracks: readonly AreaTrackRow[];
  /** Groups by (kind, name), largest total first, at most maxAreaGroups. */
  readonly groups: readonly AreaGroupRow[];
  readonly groupCount: number;
}

/**
 * Ops that overlap [fromNs, toNs], as the normal view's area table counts them: whole durations
 * (not clipped), grouped by kind and name; per track, the count, the kinds and the busy time
 * inside the range (the union of the ops' intervals, clipped). Feed each track's overlapping ops
 * in start order between `beginTrack` and `endTrack`.
 */
export class AreaAccumulator {
  // Groups by (kind, name): a slot per key, their sums in parallel arrays (no object per op).
  private readonly slotOf = new Map<number, number>();
  private readonly gKey: number[] = [];
  private readonly gN: number[] = [];
  private readonly gSum: number[] = [];
  private readonly gMin: number[] = [];
  private readonly gMax: number[] = [];
  private readonly kindN = new Float64Array(256);
  private readonly kindSum = new Float64Array(256);
  private readonly trackRows: AreaTrackRow[] = [];
  private total = 0;
  private track = 0;
  private trackCount = 0;
  private busyNs = 0;
  private runStart = 0;
  private runEnd = 0;

  constructor(
    private readonly fromNs: number,
    private readonly toNs: number,
  ) {}

  beginTrack(track: number): void {
    this.track = track;
    this.trackCount = 0;
    this.kindN.fill(0);
    this.kindSum.fill(0);
    this.busyNs = 0;
    this.runStart = this.fromNs;
    this.runEnd = this.fromNs;
  }

  /** One op of the track, overlapping the range, after those that start before it. */
  add(kind: number, nameId: number, startNs: number, endNs: number): void {
    const durNs = endNs - startNs;
    this.trackCount++;
    this.kindN[kind]!++;
    this.kindSum[kind]! += durNs;
    // kind < 256, so kind + 256 * nameId is a unique key below 2^41.
    const key = kind + 256 * nameId;
    let slot = this.slotOf.get(key);
    if (slot === undefined) {
      slot = this.gKey.length;
      this.slotOf.set(key, slot);
      this.gKey.push(key);
      this.gN.push(0);
      this.gSum.push(0);
      this.gMin.push(durNs);
      this.gMax.push(durNs);
    }
    this.gN[slot]!++;
    this.gSum[slot]! += durNs;
    if (durNs < this.gMin[slot]!) {
      this.gMin[slot] = durNs;
    }
    if (durNs > this.gMax[slot]!) {
      this.gMax[slot] = durNs;
    }
    // Start order: merge the clipped intervals into runs.
    const s = Math.max(this.fromNs, startNs);
    const e = Math.min(this.toNs, endNs);
    if (s > this.runEnd) {
      this.busyNs += this.runEnd - this.runStart;
      this.runStart = s;
      this.runEnd = e;
    } else if (e > this.runEnd) {
      this.runEnd = e;
    }
  }

  endTrack(): void {
    this.busyNs += this.runEnd - this.runStart;
    this.total += this.trackCount;
    if (this.trackCount === 0) {
      return;
    }
    const kinds: AreaKindRow[] = [];
    for (let kind = 0; kind < 256; kind++) {
      if (this.kindN[kind]! > 0) {
        kinds.push({
          kind: opKindName(kind),
          count: this.kindN[kind]!,
          sumNs: this.kindSum[kind]!,
        });
      }
    }
    kinds.sort((a, b) => b.sumNs - a.sumNs || b.count - a.count);
    this.trackRows.push({
      track: this.track,
      count: this.trackCount,
      busyNs: this.busyNs,
      kinds,
    });
  }

  answer(nameOf: (nameId: number) => string): AreaAnswer {
    const rows = this.gKey
      .map((key, slot) => ({
        kind: opKindName(key % 256),
        name: nameOf(Math.floor(key / 256)),
        count: this.gN[slot]!,
        sumNs: this.gSum[slot]!,
        avgNs: this.gSum[slot]! / this.gN[slot]!,
        minNs: this.gMin[slot]!,
        maxNs: this.gMax[slot]!,
      }))
      .sort((a, b) => b.sumNs - a.sumNs || a.name.localeCompare(b.name));
    return {
      fromNs: this.fromNs,
      toNs: this.toNs,
      count: this.total,
      tracks: this.trackRows,
      groups: rows.slice(0, maxAreaGroups),
      groupCount: rows.length,
    };
  }
}

export interface SearchMarksAnswer {
  /** Ops whose name matches, in the whole trace. */
  readonly count: number;
  /** Width of a bucket: the trace's span split into `bucketCount`. */
  readonly bucketNs: number;
  /** Per track with matches: the buckets holding match starts, ascending, and their counts. */
  readonly tracks: readonly {
    readonly track: number;
    readonly buckets: readonly number[];
    readonly counts: readonly number[];
  }[];
}

/**
 * Where the matches of a name search are: per track, counts per bucket of the whole span. Feed
 * each track's matches in start order between `beginTrack` and `endTrack`, tracks ascending.
 */
export class MarksAccumulator {
  readonly bucketNs: number;
  private count = 0;
  private readonly tracks: { track: number; buckets: number[]; counts: number[] }[] = [];
  private row: { track: number; buckets: number[]; counts: number[] } = {
    track: 0,
    buckets: [],
    counts: [],
  };

  constructor(
    spanNs: number,
    private readonly bucketCount: number,
  ) {
    this.bucketNs = Math.max(1, spanNs) / bucketCount;
  }

  beginTrack(track: number): void {
    this.row = { track, buckets: [], counts: [] };
  }

  /** The bucket an op that starts at `startNs` falls in. */
  bucketOf(startNs: number): number {
    return Math.min(this.bucketCount - 1, Math.floor(startNs / this.bucketNs));
  }

  /** One match of the track, after those that start before it. */
  add(startNs: number): void {
    this.addToBucket(this.bucketOf(startNs), 1);
  }

  /** `n` matches in `bucket` of the track, after those of the buckets before it. */
  addToBucket(bucket: number, n: number): void {
    this.count += n;
    // Buckets ascend: a new one or more in the last.
    const row = this.row;
    const last = row.buckets.length - 1;
    if (last >= 0 && row.buckets[last] === bucket) {
      row.counts[last]! += n;
    } else {
      row.buckets.push(bucket);
      row.counts.push(n);
    }
  }

  endTrack(): void {
    if (this.row.buckets.length > 0) {
      this.tracks.push(this.row);
    }
  }

  answer(): SearchMarksAnswer {
    return { count: this.count, bucketNs: this.bucketNs, tracks: this.tracks };
  }
}
