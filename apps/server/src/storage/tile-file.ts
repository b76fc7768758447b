import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { opKindName } from '@streamscope/trace';
import type { TileSet } from '@streamscope/trace';
import type { TileHeader } from './tile-format.ts';
import {
  blockDirFields,
  headerBytes,
  readHeader,
  rowsPerBlock,
  tileRecordBytes,
  trackDirFields,
} from './tile-format.ts';
import type { FlowRef } from './tile-flows.ts';
import { flowRefBytes, flowsOfRefs } from './tile-flows.ts';
import { f64, reachOf, readAt } from './tile-io.ts';
import type { FieldCoding } from './tile-rows.ts';
import { OpCol, decodeRowBlock, opRowFields, rangeRowFields } from './tile-rows.ts';

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

/** Which rows: the ops' or the ranges'. */
export type RowSection = 'ops' | 'ranges';

/** Most buckets one tiles answer may hold per track (px × fan-out bounds it well below). */
const maxBucketsPerTrack = 1 << 18;
/** Most bytes of blocks one read of a window takes (a window reads a track in such pieces). */
const maxReadBytes = 4 << 20;
/** Decoded blocks kept for random reads (a search's binary search and its matches). */
const cachedBlocks = 16;
/** Posting entries read at once (4 bytes each). */
const postingsPerRead = 1 << 16;

/** An op's fields as its row holds them: numbers, for answers that name kinds and names themselves. */
export interface OpFields {
  readonly op: number;
  readonly track: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly kind: number;
  readonly flags: number;
  readonly nameId: number;
  readonly correlationId: number;
  readonly bytes: number;
}

interface Section {
  readonly fields: readonly FieldCoding[];
  /** Per block: offset, bytes, first start, latest end (blockDirFields f64). */
  readonly blocks: Float64Array;
  /** Per block: the latest end of its track's blocks up to it (a window's first block). */
  readonly reach: Float64Array;
  /** Track directory fields: first block, block count, row count. */
  readonly dir: readonly [number, number, number];
}

/**
 * A trace's level-of-detail file, open for reading by offset (tile-format.ts): the header and
 * directories are read at open (about 0.2 bytes an op); tiles, rows and postings are read per
 * request with positioned reads, so memory does not grow with the trace. Reads are
 * asynchronous: the event loop never waits on the disk.
 */
export class TileFile {
  readonly header: TileHeader;
  readonly names: readonly string[];
  private readonly cache = new Map<number, Float64Array>();
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
    private readonly file: string,
    header: TileHeader,
    private readonly trackDir: Float64Array,
    private readonly tileDir: Float64Array,
    private readonly postingDir: Float64Array,
    private readonly sections: { readonly ops: Section; readonly ranges: Section },
    names: readonly string[],
  ) {
    this.header = header;
    this.names = names;
  }

  static async open(file: string): Promise<TileFile> {
    const handle = await open(file, 'r');
    try {
      const size = (await handle.stat()).size;
      const h = readHeader(await readAt(handle, 0, headerBytes), size, file);
      const f64At = async (offset: number, count: number): Promise<Float64Array> =>
        f64(await readAt(handle, offset, count * 8));
      const trackDir = await f64At(h.trackDirOffset, h.trackCount * trackDirFields);
      const section = async (
        fields: readonly FieldCoding[],
        dirOffset: number,
        blockCount: number,
        dir: readonly [number, number, number],
      ): Promise<Section> => {
        const blocks = await f64At(dirOffset, blockCount * blockDirFields);
        return { fields, blocks, reach: reachOf(blocks, trackDir, dir[0], dir[1]), dir };
      };
      const sections = {
        ops: await section(opRowFields, h.opBlockDirOffset, h.opBlockCount, [0, 1, 2]),
        ranges: await section(rangeRowFields, h.rangeBlockDirOffset, h.rangeBlockCount, [4, 5, 6]),
      };
      const tileDir = await f64At(h.tileDirOffset, h.levelCount * h.trackCount * 2);
      const postingDir = await f64At(h.postingDirOffset, h.nameCount * 2);
      const names: unknown = JSON.parse(
        (await readAt(handle, h.namesOffset, h.namesBytes)).toString('utf8'),
      );
      if (!Array.isArray(names) || names.length !== h.nameCount) {
        throw new Error(`${file}: names section does not hold ${h.nameCount} strings`);
      }
      const parts = [trackDir, tileDir, postingDir, sections] as const;
      return new TileFile(handle, file, h, ...parts, names as string[]);
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

  /**
   * The stored trace's span as `Trace.spanNs` gives it once decoded: the latest end of any op or
   * range (as stored: whole ns), at least 0. From the block directories, not the rows.
   */
  storedSpanNs(): number {
    let endNs = 0;
    for (const s of [this.sections.ops, this.sections.ranges]) {
      for (let k = 3; k < s.blocks.length; k += blockDirFields) {
        endNs = Math.max(endNs, s.blocks[k]!);
      }
    }
    return endNs;
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

  /** The trace with only its ops and ranges at time 0 (every track and string), in the codec's container. */
  skeleton(): Promise<Buffer> {
    return this.read(this.header.skeletonOffset, this.header.skeletonBytes);
  }

  /** The trace without ops and ranges (every track and string): what a window is made on. */
  base(): Promise<Buffer> {
    return this.read(this.header.baseOffset, this.header.baseBytes);
  }

  /** Op `op` of the trace (0 ≤ op < opCount). */
  async op(op: number): Promise<OpRow> {
    const position = (await this.read(this.header.positionsOffset + op * 4, 4)).readUInt32LE(0);
    return this.opAt(position);
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
      const positions = await this.read(head.offset + head.at * 4, take * 4);
      for (let k = 0; k < take; k++) {
        candidates.push(await this.opAt(positions.readUInt32LE(k * 4)));
      }
    }
    candidates.sort((a, b) => a.startNs - b.startNs || a.op - b.op);
    const matches =
      direction === 'next'
        ? candidates.slice(0, limit)
        : candidates.slice(Math.max(0, candidates.length - limit));
    return { count, matches };
  }

  /**
   * Calls `visit` with the decoded rows (row-major, the section's fields) of every block of
   * `track` that may hold a row overlapping [fromNs, toNs], in start order: the caller keeps the
   * rows that do. Blocks are read a few MB at a time, so memory stays that whatever the window.
   */
  async forEachBlockInWindow(
    section: RowSection,
    track: number,
    fromNs: number,
    toNs: number,
    visit: (rows: Float64Array, count: number) => void,
  ): Promise<void> {
    const s = this.sections[section];
    const d = track * trackDirFields;
    const first = this.trackDir[d + s.dir[0]]!;
    const end = first + this.trackDir[d + s.dir[1]]!;
    const b = s.blocks;
    // Blocks that start by toNs, from the first whose track has reached fromNs by its end.
    let lo = first;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s.reach[mid]! < fromNs) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    let stop = lo;
    while (stop < end && b[stop * blockDirFields + 2]! <= toNs) {
      stop++;
    }
    const reaches = (k: number): boolean => b[k * blockDirFields + 3]! >= fromNs;
    await this.readBlocks(section, track, lo, stop, reaches, visit);
  }

  /**
   * Calls `visit` with the decoded rows of the op blocks of `track` that `marked` flags (one byte
   * per op block of the file, 1 for a block to read), in start order.
   */
  async forEachMarkedOpBlock(
    track: number,
    marked: Uint8Array,
    visit: (rows: Float64Array, count: number) => void,
  ): Promise<void> {
    const d = track * trackDirFields;
    const first = this.trackDir[d]!;
    const end = first + this.trackDir[d + 1]!;
    await this.readBlocks('ops', track, first, end, (k) => marked[k] === 1, visit);
  }

  /** The op block (of the whole file) that holds row `position`. */
  opBlockOf(position: number): number {
    return this.locate(position).block;
  }

  /** Calls `visit` with the row positions of the ops named `nameId`, in start order, a run at a time. */
  async forEachPosting(nameId: number, visit: (positions: Uint32Array) => void): Promise<void> {
    const offset = this.postingDir[nameId * 2]!;
    const n = this.postingDir[nameId * 2 + 1]!;
    for (let at = 0; at < n; at += postingsPerRead) {
      const take = Math.min(postingsPerRead, n - at);
      const bytes = await this.read(offset + at * 4, take * 4);
      const positions = new Uint32Array(take);
      for (let k = 0; k < take; k++) {
        positions[k] = bytes.readUInt32LE(k * 4);
      }
      visit(positions);
    }
  }

  /** Op `op`'s fields as its row holds them (0 ≤ op < opCount). */
  async opFields(op: number): Promise<OpFields> {
    const position = (await this.read(this.header.positionsOffset + op * 4, 4)).readUInt32LE(0);
    return this.fieldsAt(position);
  }

  /** The flows that start or end at op `op`, in flow order (FlowTable.touching's). */
  async flowsOf(op: number): Promise<FlowRef[]> {
    const bounds = await this.read(this.header.flowFirstOffset + op * 4, 8);
    const first = bounds.readUInt32LE(0);
    const count = bounds.readUInt32LE(4) - first;
    if (count === 0) {
      return [];
    }
    const where = `${this.file}: flows of op ${op}`;
    if (!(count > 0 && first + count <= this.header.flowRefCount)) {
      throw new Error(
        `${where}: refs ${first}+${count} beyond the file's ${this.header.flowRefCount}`,
      );
    }
    const refs = await this.read(
      this.header.flowRefsOffset + first * flowRefBytes,
      count * flowRefBytes,
    );
    return flowsOfRefs(refs, op, where);
  }

  /** Reads and decodes the blocks lo…stop of `track` that `keep`, adjacent ones at once. */
  private async readBlocks(
    section: RowSection,
    track: number,
    lo: number,
    stop: number,
    keep: (block: number) => boolean,
    visit: (rows: Float64Array, count: number) => void,
  ): Promise<void> {
    const s = this.sections[section];
    const d = track * trackDirFields;
    const first = this.trackDir[d + s.dir[0]]!;
    const rowCount = this.trackDir[d + s.dir[2]]!;
    const b = s.blocks;
    const rows = new Float64Array(rowsPerBlock * s.fields.length);
    let k = lo;
    while (k < stop) {
      if (!keep(k)) {
        k++;
        continue;
      }
      // A run of adjacent blocks, read at once.
      const runStart = b[k * blockDirFields]!;
      let runEnd = k + 1;
      while (
        runEnd < stop &&
        keep(runEnd) &&
        b[runEnd * blockDirFields]! + b[runEnd * blockDirFields + 1]! - runStart <= maxReadBytes
      ) {
        runEnd++;
      }
      const last = (runEnd - 1) * blockDirFields;
      const bytes = await this.read(runStart, b[last]! + b[last + 1]! - runStart);
      for (let j = k; j < runEnd; j++) {
        const o = b[j * blockDirFields]! - runStart;
        const count = Math.min(rowsPerBlock, rowCount - (j - first) * rowsPerBlock);
        const block = bytes.subarray(o, o + b[j * blockDirFields + 1]!);
        decodeRowBlock(block, count, s.fields, rows, `${this.file}: ${section} block ${j}`);
        visit(rows, count);
      }
      k = runEnd;
    }
  }

  /** The op at row `position` (its track's first position plus its rank in start order). */
  private async opAt(position: number): Promise<OpRow> {
    const f = await this.fieldsAt(position);
    return {
      op: f.op,
      startNs: f.startNs,
      endNs: f.endNs,
      bytes: f.bytes,
      name: this.names[f.nameId] ?? '',
      correlationId: f.correlationId,
      track: f.track,
      kind: opKindName(f.kind),
      flags: f.flags,
    };
  }

  private async fieldsAt(position: number): Promise<OpFields> {
    const { track, block, count, row } = this.locate(position);
    const rows = await this.opBlock(block, count);
    const r = row * opRowFields.length;
    const startNs = rows[r + OpCol.startNs]!;
    return {
      op: rows[r + OpCol.index]!,
      track,
      startNs,
      endNs: startNs + rows[r + OpCol.durNs]!,
      kind: rows[r + OpCol.kinds]! & 0xff,
      flags: (rows[r + OpCol.kinds]! >> 8) & 0xff,
      nameId: rows[r + OpCol.nameId]!,
      correlationId: rows[r + OpCol.correlationId]!,
      bytes: rows[r + OpCol.bytes]!,
    };
  }

  /** Where row `position` is: its track, its op block, the block's rows and its rank there. */
  private locate(position: number): { track: number; block: number; count: number; row: number } {
    const { trackCount } = this.header;
    // The last track whose first position is at most `position` and that has ops.
    let lo = 0;
    let hi = trackCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.trackDir[mid * trackDirFields + 3]! <= position) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    let track = lo;
    while (track > 0 && this.trackDir[track * trackDirFields + 2] === 0) {
      track--;
    }
    const d = track * trackDirFields;
    const local = position - this.trackDir[d + 3]!;
    const inTrack = Math.floor(local / rowsPerBlock);
    return {
      track,
      block: this.trackDir[d]! + inTrack,
      count: Math.min(rowsPerBlock, this.trackDir[d + 2]! - inTrack * rowsPerBlock),
      row: local % rowsPerBlock,
    };
  }

  private async opBlock(block: number, count: number): Promise<Float64Array> {
    const cached = this.cache.get(block);
    if (cached !== undefined) {
      return cached;
    }
    const b = this.sections.ops.blocks;
    const o = block * blockDirFields;
    const rows = new Float64Array(count * opRowFields.length);
    const where = `${this.file}: ops block ${block}`;
    decodeRowBlock(await this.read(b[o]!, b[o + 1]!), count, opRowFields, rows, where);
    this.cache.set(block, rows);
    if (this.cache.size > cachedBlocks) {
      this.cache.delete(this.cache.keys().next().value!);
    }
    return rows;
  }

  /** First place in a posting list whose op starts at or after `fromNs`. */
  private async firstStartingAt(offset: number, n: number, fromNs: number): Promise<number> {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const position = (await this.read(offset + mid * 4, 4)).readUInt32LE(0);
      if ((await this.opAt(position)).startNs < fromNs) {
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
