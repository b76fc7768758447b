import { opKindCount } from '@streamscope/trace';
import { tileRecordBytes } from '../storage/tile-format.ts';

/**
 * The records of one track at one level, in a buffer reused (and grown) across calls. The
 * track's ops come as contiguous columns in start order (gathered once per track), so each level
 * is one sequential pass.
 */
export class RecordBlock {
  bytes = new Uint8Array(1 << 16);
  count = 0;
  private u32 = new Uint32Array(this.bytes.buffer);
  private f32 = new Float32Array(this.bytes.buffer);
  private readonly busyByKind = new Float64Array(opKindCount + 1);
  /** Kinds with busy time in the open bucket (so a flush reads and clears only those). */
  private readonly touched = new Uint8Array(opKindCount + 1);
  private touchedCount = 0;

  fill(
    count: number,
    startNs: Float64Array,
    endNs: Float64Array,
    kind: Uint8Array,
    bucketNs: number,
  ): void {
    this.count = 0;
    const busyByKind = this.busyByKind;
    const instantNs = bucketNs / 64;
    let bucket = -1;
    // Where the open bucket ends: ops before it need no division to find their bucket.
    let bucketEndNs = -Infinity;
    let opCount = 0;
    let busyNs = 0;
    let maxEndNs = 0;
    for (let i = 0; i < count; i++) {
      const s = startNs[i]!;
      if (s >= bucketEndNs || s < bucketEndNs - bucketNs) {
        const b = Math.floor(s / bucketNs);
        if (b !== bucket) {
          if (opCount > 0) {
            this.push(bucket, opCount, busyNs, maxEndNs - bucket * bucketNs, bucketNs);
          }
          bucket = b;
          bucketEndNs = (b + 1) * bucketNs;
          opCount = 0;
          busyNs = 0;
          maxEndNs = 0;
        }
      }
      const e = endNs[i]!;
      const durNs = e - s;
      opCount++;
      busyNs += durNs;
      // Instants weigh a little, so a bucket of only event records still takes their kind.
      const c = Math.min(kind[i]!, opKindCount);
      if (busyByKind[c] === 0) {
        this.touched[this.touchedCount++] = c;
      }
      busyByKind[c] = busyByKind[c]! + durNs + instantNs;
      if (e > maxEndNs) {
        maxEndNs = e;
      }
    }
    if (opCount > 0) {
      this.push(bucket, opCount, busyNs, maxEndNs - bucket * bucketNs, bucketNs);
    }
  }

  private push(
    bucket: number,
    opCount: number,
    busyNs: number,
    spanNs: number,
    bucketNs: number,
  ): void {
    const o = this.count * tileRecordBytes;
    if (o + tileRecordBytes > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
      this.u32 = new Uint32Array(grown.buffer);
      this.f32 = new Float32Array(grown.buffer);
    }
    // Dominant kind by busy time, and a second one when it kept the bucket a third as busy.
    const busy = this.busyByKind;
    let best = -1;
    let second = -1;
    for (let t = 0; t < this.touchedCount; t++) {
      const c = this.touched[t]!;
      if (best < 0 || busy[c]! > busy[best]! || (busy[c] === busy[best] && c < best)) {
        second = best;
        best = c;
      } else if (
        second < 0 ||
        busy[c]! > busy[second]! ||
        (busy[c] === busy[second] && c < second)
      ) {
        second = c;
      }
    }
    const mix = second >= 0 && busy[second]! * 3 >= busy[best]! ? second : 0xff;
    for (let t = 0; t < this.touchedCount; t++) {
      busy[this.touched[t]!] = 0;
    }
    this.touchedCount = 0;
    // 20 bytes = 5 words: bucket, ops, busy (f32), span (f32), kinds (low u16; the rest zero).
    const w = this.count * 5;
    this.u32[w] = bucket;
    this.u32[w + 1] = opCount;
    this.f32[w + 2] = busyNs;
    this.f32[w + 3] = Math.max(bucketNs, spanNs);
    this.u32[w + 4] = Math.max(0, best) | (mix << 8);
    this.count++;
  }
}
