import type { TileSet } from '@streamscope/trace';
import { tileRecordBytes } from './tile-format.ts';

// The tiles file's level-of-detail records (tile-format.ts): per level and track, one record of
// tileRecordBytes per non-empty bucket, sorted by bucket; the tile directory says where.

/** Most buckets one tiles answer may hold per track (px × fan-out bounds it well below). */
const maxBucketsPerTrack = 1 << 18;

/** Positioned reads of the tiles file: `length` bytes at `position`, all of them. */
type ReadAt = (position: number, length: number) => Promise<Buffer>;

/** Every track's non-empty buckets of `level` (buckets of `bucketNs`) that start in [fromNs, toNs). */
export async function readTileSet(
  read: ReadAt,
  tileDir: Float64Array,
  trackCount: number,
  level: number,
  bucketNs: number,
  fromNs: number,
  toNs: number,
): Promise<TileSet> {
  const fromBucket = Math.max(0, Math.floor(fromNs / bucketNs));
  const toBucket = Math.max(fromBucket, Math.ceil(toNs / bucketNs));
  const blocks: Buffer[] = [];
  const trackFirst = new Uint32Array(trackCount + 1);
  for (let t = 0; t < trackCount; t++) {
    const d = (level * trackCount + t) * 2;
    const offset = tileDir[d]!;
    const count = tileDir[d + 1]!;
    const lo = await lowerBound(read, offset, count, fromBucket);
    const hi = Math.min(count, lo + Math.min(toBucket - fromBucket, maxBucketsPerTrack));
    const bytes =
      hi > lo
        ? await read(offset + lo * tileRecordBytes, (hi - lo) * tileRecordBytes)
        : Buffer.alloc(0);
    // Keep the records before toBucket (the read may run past it).
    let kept = 0;
    while (kept < hi - lo && bytes.readUInt32LE(kept * tileRecordBytes) < toBucket) {
      kept++;
    }
    blocks.push(bytes.subarray(0, kept * tileRecordBytes));
    trackFirst[t + 1] = trackFirst[t]! + kept;
  }
  const total = trackFirst[trackCount]!;
  const set = {
    level,
    bucketNs,
    trackFirst,
    buckets: new Uint32Array(total),
    opCounts: new Uint32Array(total),
    busyNs: new Float32Array(total),
    spanNs: new Float32Array(total),
    kinds: new Uint16Array(total),
  };
  let k = 0;
  for (const block of blocks) {
    for (let o = 0; o < block.length; o += tileRecordBytes, k++) {
      set.buckets[k] = block.readUInt32LE(o);
      set.opCounts[k] = block.readUInt32LE(o + 4);
      set.busyNs[k] = block.readFloatLE(o + 8);
      set.spanNs[k] = block.readFloatLE(o + 12);
      set.kinds[k] = block.readUInt16LE(o + 16);
    }
  }
  return set;
}

/** First record of a track's level whose bucket is at least `bucket`. */
async function lowerBound(
  read: ReadAt,
  offset: number,
  count: number,
  bucket: number,
): Promise<number> {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await read(offset + mid * tileRecordBytes, 4)).readUInt32LE(0) < bucket) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
