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
  trackDirFields,
} from './tile-format.ts';
import type { FlowRef } from './tile-flows.ts';
import { flowRefBytes, flowsOfRefs } from './tile-flows.ts';
import { f64, reachOf, readAt } from './tile-io.ts';
import { readTileSet } from './tile-records.ts';
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

/** Which rows: the ops' or the ranges'. */
export type RowSection = 'ops' | 'ranges';

/** Most bytes of blocks one read of a window takes (a window reads a track in such pieces). */
const maxReadBytes = 4 << 20;
/** Decoded blocks kept for random reads (a search's binary search and its matches). */
const cachedBlocks = 16;

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
  tiles(level: number, fromNs: number, toNs: number): Promise<TileSet> {
    const { trackCount } = this.header;
    const read = (position: number, length: number): Promise<Buffer> => this.read(position, length);
    return readTileSet(read, this.tileDir, trackCount, level, this.bucketNsOf(level), fromNs, toNs);
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

  /** How many ops are named `nameId`. */
  postingCount(nameId: number): number {
    return this.postingDir[nameId * 2 + 1]!;
  }

  /**
   * Row positions `first…first + count` of the ops named `nameId` (its posting list, in start
   * order).
   */
  async postingsAt(nameId: number, first: number, count: number): Promise<Uint32Array> {
    const bytes = await this.read(this.postingDir[nameId * 2]! + first * 4, count * 4);
    const positions = new Uint32Array(count);
    for (let k = 0; k < count; k++) {
      positions[k] = bytes.readUInt32LE(k * 4);
    }
    return positions;
  }

  /** The starts (whole ns) of postings `first…first + count` of the ops named `nameId`. */
  async postingStartsAt(nameId: number, first: number, count: number): Promise<Float64Array> {
    const entry = (this.postingDir[nameId * 2]! - this.header.postingsOffset) / 4 + first;
    return f64(await this.read(this.header.postingStartsOffset + entry * 8, count * 8));
  }

  /** The track of row `position`. */
  trackOfPosition(position: number): number {
    return this.locate(position).track;
  }

  /** Op `op`'s fields as its row holds them (0 ≤ op < opCount). */
  async opFields(op: number): Promise<OpFields> {
    const position = (await this.read(this.header.positionsOffset + op * 4, 4)).readUInt32LE(0);
    return this.fieldsAt(position);
  }

  /** The flows that start or end at op `op`, in flow order (FlowTable.touching's). */
  async flowsOf(op: number): Promise<FlowRef[]> {
    const first = await this.firstFlowRef(op);
    const count = (await this.firstFlowRef(op + 1)) - first;
    if (count === 0) {
      return [];
    }
    const refs = await this.read(
      this.header.flowRefsOffset + first * flowRefBytes,
      count * flowRefBytes,
    );
    return flowsOfRefs(refs, op, `${this.file}: flows of op ${op}`);
  }

  /** The first flow ref of an op at or after `op` (refs are sorted by op): a binary search. */
  private async firstFlowRef(op: number): Promise<number> {
    let lo = 0;
    let hi = this.header.flowRefCount;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if ((await this.read(this.header.flowOpsOffset + mid * 4, 4)).readUInt32LE(0) < op) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
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
  async opAt(position: number): Promise<OpRow> {
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

  private read(position: number, length: number): Promise<Buffer> {
    return readAt(this.handle, position, length);
  }
}
