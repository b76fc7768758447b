import { opKindCount } from '@streamscope/trace';
import { tileRecordBytes } from '../storage/tile-format.ts';

/**
 * One track's ops summed per (bucket, kind) at one level, in bucket order: what a level's
 * records are made of, and what the next level's entries are merged from (fan-out buckets
 * each), so the ops are read once for all levels and each coarser level costs a quarter of the
 * one below. Sums of whole ns are exact: the records equal those summed from the ops directly.
 */
export class KindEntries {
  count = 0;
  bucket = new Float64Array(1024);
  kind = new Uint8Array(1024);
  durNs = new Float64Array(1024);
  ops = new Float64Array(1024);
  /** The latest end of the bucket's ops (of any kind: the same in each entry of a bucket). */
  maxEndNs = new Float64Array(1024);

  reset(): void {
    this.count = 0;
  }

  push(bucket: number, kind: number, durNs: number, ops: number, maxEndNs: number): void {
    if (this.count === this.bucket.length) {
      const grow = <T extends Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.bucket = grow(this.bucket, (n) => new Float64Array(n));
      this.kind = grow(this.kind, (n) => new Uint8Array(n));
      this.durNs = grow(this.durNs, (n) => new Float64Array(n));
      this.ops = grow(this.ops, (n) => new Float64Array(n));
      this.maxEndNs = grow(this.maxEndNs, (n) => new Float64Array(n));
    }
    const k = this.count++;
    this.bucket[k] = bucket;
    this.kind[k] = kind;
    this.durNs[k] = durNs;
    this.ops[k] = ops;
    this.maxEndNs[k] = maxEndNs;
  }
}

/** Per-kind sums of the open bucket, touching and clearing only the kinds it has. */
class KindSums {
  readonly durNs = new Float64Array(opKindCount + 1);
  readonly ops = new Float64Array(opKindCount + 1);
  readonly touched = new Uint8Array(opKindCount + 1);
  touchedCount = 0;

  add(kind: number, durNs: number, ops: number): void {
    if (this.ops[kind] === 0) {
      this.touched[this.touchedCount++] = kind;
    }
    this.durNs[kind] = this.durNs[kind]! + durNs;
    this.ops[kind] = this.ops[kind]! + ops;
  }

  flushTo(out: KindEntries, bucket: number, maxEndNs: number): void {
    for (let t = 0; t < this.touchedCount; t++) {
      const c = this.touched[t]!;
      out.push(bucket, c, this.durNs[c]!, this.ops[c]!, maxEndNs);
      this.durNs[c] = 0;
      this.ops[c] = 0;
    }
    this.touchedCount = 0;
  }
}

const sums = new KindSums();

/** Level 0's entries of a track's ops (contiguous columns in start order). */
export function entriesOfOps(
  count: number,
  startNs: Float64Array,
  endNs: Float64Array,
  kind: Uint8Array,
  bucketNs: number,
  out: KindEntries,
): void {
  out.reset();
  let bucket = -1;
  // Where the open bucket ends: ops before it need no division to find their bucket.
  let bucketEndNs = -Infinity;
  let maxEndNs = -Infinity;
  for (let i = 0; i < count; i++) {
    const s = startNs[i]!;
    if (s >= bucketEndNs) {
      const b = Math.floor(s / bucketNs);
      if (b !== bucket) {
        if (bucket >= 0 || sums.touchedCount > 0) {
          sums.flushTo(out, bucket, maxEndNs);
        }
        bucket = b;
        bucketEndNs = (b + 1) * bucketNs;
        maxEndNs = -Infinity;
      }
    }
    const e = endNs[i]!;
    sums.add(Math.min(kind[i]!, opKindCount), e - s, 1);
    if (e > maxEndNs) {
      maxEndNs = e;
    }
  }
  sums.flushTo(out, bucket, maxEndNs);
}

/** The next level's entries: each bucket merges `fanout` buckets of `from`. */
export function coarser(from: KindEntries, fanout: number, out: KindEntries): void {
  out.reset();
  let bucket = NaN;
  let maxEndNs = -Infinity;
  for (let k = 0; k < from.count; k++) {
    const b = Math.floor(from.bucket[k]! / fanout);
    if (b !== bucket) {
      if (sums.touchedCount > 0) {
        sums.flushTo(out, bucket, maxEndNs);
      }
      bucket = b;
      maxEndNs = -Infinity;
    }
    sums.add(from.kind[k]!, from.durNs[k]!, from.ops[k]!);
    if (from.maxEndNs[k]! > maxEndNs) {
      maxEndNs = from.maxEndNs[k]!;
    }
  }
  if (sums.touchedCount > 0) {
    sums.flushTo(out, bucket, maxEndNs);
  }
}

/** The records of one track at one level, in a buffer reused (and grown) across calls. */
export class RecordBlock {
  bytes = new Uint8Array(1 << 16);
  count = 0;
  private u32 = new Uint32Array(this.bytes.buffer);
  private f32 = new Float32Array(this.bytes.buffer);
  private readonly busyByKind = new Float64Array(opKindCount + 1);

  /** One record per bucket of `entries`, whose buckets are `bucketNs` wide. */
  fill(entries: KindEntries, bucketNs: number): void {
    this.count = 0;
    // Instants weigh a little, so a bucket of only event records still takes their kind.
    const instantNs = bucketNs / 64;
    let k = 0;
    while (k < entries.count) {
      const bucket = entries.bucket[k]!;
      const maxEndNs = entries.maxEndNs[k]!;
      let opCount = 0;
      let busyNs = 0;
      // Dominant kind by busy time, and a second one when it kept the bucket a third as busy.
      let best = -1;
      let second = -1;
      const busy = this.busyByKind;
      for (; k < entries.count && entries.bucket[k] === bucket; k++) {
        const c = entries.kind[k]!;
        const ops = entries.ops[k]!;
        opCount += ops;
        busyNs += entries.durNs[k]!;
        busy[c] = entries.durNs[k]! + ops * instantNs;
        if (best < 0 || busy[c] > busy[best]! || (busy[c] === busy[best] && c < best)) {
          second = best;
          best = c;
        } else if (
          second < 0 ||
          busy[c] > busy[second]! ||
          (busy[c] === busy[second] && c < second)
        ) {
          second = c;
        }
      }
      const mix = second >= 0 && busy[second]! * 3 >= busy[best]! ? second : 0xff;
      this.push(
        bucket,
        opCount,
        busyNs,
        Math.max(bucketNs, maxEndNs - bucket * bucketNs),
        best | (mix << 8),
      );
    }
  }

  private push(
    bucket: number,
    opCount: number,
    busyNs: number,
    spanNs: number,
    kinds: number,
  ): void {
    const o = this.count * tileRecordBytes;
    if (o + tileRecordBytes > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
      this.u32 = new Uint32Array(grown.buffer);
      this.f32 = new Float32Array(grown.buffer);
    }
    // 20 bytes = 5 words: bucket, ops, busy (f32), span (f32), kinds (low u16; the rest zero).
    const w = this.count * 5;
    this.u32[w] = bucket;
    this.u32[w + 1] = opCount;
    this.f32[w + 2] = busyNs;
    this.f32[w + 3] = spanNs;
    this.u32[w + 4] = kinds;
    this.count++;
  }
}
