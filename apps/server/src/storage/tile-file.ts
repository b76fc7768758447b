import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { opKindName } from '@streamscope/trace';
import type { TileSet } from '@streamscope/trace';
import type { TileHeader } from './tile-format.ts';
import { headerBytes, opRowBytes, readHeader, tileRecordBytes } from './tile-format.ts';

/** One op as a details or search answer gives it. */
export interface OpRow {
  readonly op: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly track: number;
  readonly kind: string;
  readonly name: string;
  readonly bytes: number;
  readonly correlationId: number;
  readonly flags: number;
}

export interface SearchAnswer {
  /** Matches in the whole trace. */
  readonly count: number;
  /** Up to `limit` matches in time order: the first ones from `fromNs` on (next) or before it (previous). */
  readonly matches: readonly OpRow[];
}

/** Most buckets one tiles answer may hold per track (px × fan-out bounds it well below). */
const maxBucketsPerTrack = 1 << 18;

/**
 * A trace's level-of-detail file, open for reading by offset (tile-format.ts): the header,
 * directories and names are read at open; tiles, ops and postings are read per request with
 * positioned reads, so memory does not grow with the trace. Reads are asynchronous: the event
 * loop never waits on the disk.
 */
export class TileFile {
  readonly header: TileHeader;
  readonly names: readonly string[];
  private readonly tileDir: Float64Array;
  private readonly postingDir: Float64Array;
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
    header: TileHeader,
    tileDir: Float64Array,
    postingDir: Float64Array,
    names: readonly string[],
  ) {
    this.header = header;
    this.tileDir = tileDir;
    this.postingDir = postingDir;
    this.names = names;
  }

  static async open(file: string): Promise<TileFile> {
    const handle = await open(file, 'r');
    try {
      const size = (await handle.stat()).size;
      const header = readHeader(await readAt(handle, 0, headerBytes), size, file);
      const h = header;
      const tileDir = f64(await readAt(handle, h.tileDirOffset, h.levelCount * h.trackCount * 16));
      const postingDir = f64(await readAt(handle, h.postingDirOffset, h.nameCount * 16));
      const names: unknown = JSON.parse(
        (await readAt(handle, h.namesOffset, h.namesBytes)).toString('utf8'),
      );
      if (!Array.isArray(names) || names.length !== h.nameCount) {
        throw new Error(`${file}: names section does not hold ${h.nameCount} strings`);
      }
      return new TileFile(handle, header, tileDir, postingDir, names as string[]);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  close(): void {
    if (!this.closed) {
      this.closed = true;
      void this.handle.close();
    }
  }

  bucketNsOf(level: number): number {
    return this.header.level0BucketNs * this.header.fanout ** level;
  }

  /** The coarsest level whose buckets are at most `nsPerPx` wide (the finest when none is). */
  levelFor(nsPerPx: number): number {
    let level = 0;
    while (level + 1 < this.header.levelCount && this.bucketNsOf(level + 1) <= nsPerPx) {
      level++;
    }
    return level;
  }

  /** Every track's non-empty buckets of `level` that start in [fromNs, toNs). */
  async tiles(level: number, fromNs: number, toNs: number): Promise<TileSet> {
    const { trackCount } = this.header;
    const bucketNs = this.bucketNsOf(level);
    const fromBucket = Math.max(0, Math.floor(fromNs / bucketNs));
    const toBucket = Math.max(fromBucket, Math.ceil(toNs / bucketNs));
    const blocks: Buffer[] = [];
    const trackFirst = new Uint32Array(trackCount + 1);
    for (let t = 0; t < trackCount; t++) {
      const d = (level * trackCount + t) * 2;
      const offset = this.tileDir[d]!;
      const count = this.tileDir[d + 1]!;
      const lo = await this.lowerBound(offset, count, fromBucket);
      const hi = Math.min(count, lo + Math.min(toBucket - fromBucket, maxBucketsPerTrack));
      const bytes =
        hi > lo
          ? await this.read(offset + lo * tileRecordBytes, (hi - lo) * tileRecordBytes)
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

  /** The trace with only its ops at time 0 (every track and string), in the codec's container. */
  skeleton(): Promise<Buffer> {
    return this.read(this.header.skeletonOffset, this.header.skeletonBytes);
  }

  /** Op `op` of the trace (0 ≤ op < opCount). */
  async op(op: number): Promise<OpRow> {
    const b = await this.read(this.header.opsOffset + op * opRowBytes, opRowBytes);
    return {
      op,
      startNs: b.readDoubleLE(0),
      endNs: b.readDoubleLE(8),
      bytes: b.readDoubleLE(16),
      name: this.names[b.readUInt32LE(24)] ?? '',
      correlationId: b.readUInt32LE(28),
      track: b.readUInt16LE(32),
      kind: opKindName(b[34]!),
      flags: b[35]!,
    };
  }

  /** String ids whose name matches. */
  matchingNames(test: (name: string) => boolean): number[] {
    const ids: number[] = [];
    for (let id = 1; id < this.names.length; id++) {
      if (this.postingDir[id * 2 + 1]! > 0 && test(this.names[id]!)) {
        ids.push(id);
      }
    }
    return ids;
  }

  /**
   * Ops whose name id is in `nameIds`: how many in all, and up to `limit` in time order from
   * `fromNs` on (`next`), or the last `limit` that start before `fromNs` (`previous`).
   */
  async search(
    nameIds: readonly number[],
    fromNs: number,
    direction: 'next' | 'previous',
    limit: number,
  ): Promise<SearchAnswer> {
    let count = 0;
    const heads: { offset: number; at: number; end: number }[] = [];
    for (const id of nameIds) {
      const offset = this.postingDir[id * 2]!;
      const n = this.postingDir[id * 2 + 1]!;
      count += n;
      const at = await this.firstStartingAt(offset, n, fromNs);
      heads.push(
        direction === 'next'
          ? { offset, at, end: n }
          : { offset, at: Math.max(0, at - limit), end: at },
      );
    }
    // Each list gives at most `limit` candidates; merging them by start keeps the time order.
    const candidates: OpRow[] = [];
    for (const head of heads) {
      const take = Math.min(limit, head.end - head.at);
      if (take <= 0) {
        continue;
      }
      const indices = await this.read(head.offset + head.at * 4, take * 4);
      for (let k = 0; k < take; k++) {
        candidates.push(await this.op(indices.readUInt32LE(k * 4)));
      }
    }
    candidates.sort((a, b) => a.startNs - b.startNs || a.op - b.op);
    const matches =
      direction === 'next'
        ? candidates.slice(0, limit)
        : candidates.slice(Math.max(0, candidates.length - limit));
    return { count, matches };
  }

  /** First position in a posting list whose op starts at or after `fromNs`. */
  private async firstStartingAt(offset: number, n: number, fromNs: number): Promise<number> {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const op = (await this.read(offset + mid * 4, 4)).readUInt32LE(0);
      if ((await this.read(this.header.opsOffset + op * opRowBytes, 8)).readDoubleLE(0) < fromNs) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** First record of a block whose bucket is at least `bucket`. */
  private async lowerBound(offset: number, count: number, bucket: number): Promise<number> {
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await this.read(offset + mid * tileRecordBytes, 4)).readUInt32LE(0) < bucket) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private read(position: number, length: number): Promise<Buffer> {
    return readAt(this.handle, position, length);
  }
}

/** `length` bytes at `position`, all of them (a short read is the file ending early). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const b = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(b, done, length - done, position + done);
    if (bytesRead === 0) {
      throw new Error(`the tiles file ends before byte ${position + length}`);
    }
    done += bytesRead;
  }
  return b;
}

function f64(b: Buffer): Float64Array {
  const out = new Float64Array(b.length / 8);
  for (let k = 0; k < out.length; k++) {
    out[k] = b.readDoubleLE(k * 8);
  }
  return out;
}
