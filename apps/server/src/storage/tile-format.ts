import { open } from 'node:fs/promises';

// The level-of-detail file kept beside a stored trace (`<id>.tiles`), read by offset, never
// whole. Little-endian. Sections, in file order:
//   header      magic, version, field count, then the fields of TileHeader as f64
//   op rows     per track, its ops in start order (the track's trackOrder), in blocks of
//               rowsPerBlock rows, each block delta-encoded (tile-rows.ts): a window of a track is
//               one contiguous read, and an op costs about 12 bytes instead of its 40 raw
//   op blocks   per block, f64 offset, f64 bytes, f64 first start, f64 latest end
//   range rows  the same for ranges (NVTX and the like), per track in start order
//   range blocks
//   track dir   per track, trackDirFields f64 (where its op and range blocks are)
//   positions   u32 per op, in trace order: the op's row position (track's first + rank in it)
//   tiles       per level, per track, tileRecordBytes per non-empty bucket, sorted by bucket
//   tile dir    levelCount * trackCount * (f64 offset, f64 record count), level-major
//   postings    per string id, the u32 row positions of the ops that carry that name, in start order
//   starts      beside each posting, f64 its op's start (whole ns): where a name's ops are in
//               time, without a row decoded (a search's first match, search marks)
//   posting dir nameCount * (f64 offset, f64 count)
//   flow ops    u32 per flow end, ascending: the op (trace order) of each flow ref (tile-flows.ts)
//   flow refs   flowRefBytes per flow end, in the same order (each op's in flow order): the
//               flows that touch an op, so one op's flows cost their own bytes, not the trace's
//   names       the trace's strings as a JSON array (id = index)
//   base        the trace without ops and ranges (every string, device, process, track and launch
//               config), in the codec's container: what a window answer is made on
//   skeleton    the same with the ops and ranges at time 0: what a tiled view opens with

export const tileFileMagic = 'SSTILES3';
/** 3: the postings' starts and the flow index. A file of an older version is built again. */
export const tileFileVersion = 3;
export const tileFileExtension = '.tiles';
/** u32 bucket, u32 ops, f32 busyNs, f32 spanNs, u16 kinds, 2 spare. */
export const tileRecordBytes = 20;
/** Rows per encoded block: a random read (one op, a search match) decodes at most this many. */
export const rowsPerBlock = 256;
/** f64 offset, f64 bytes, f64 first start, f64 latest end. */
export const blockDirFields = 4;
/** f64 first op block, op blocks, ops, first op position, first range block, range blocks, ranges. */
export const trackDirFields = 7;
/** Buckets of a level merge this many of the level below. */
export const tileFanout = 4;
/** The finest level splits the trace's span into at most this many buckets. */
export const finestBucketsPerSpan = 2 ** 20;
/**
 * Ops per bucket of the finest level, on average over the span: finer levels would hold about
 * one op per record, which costs more than the exact ops a view fetches at that zoom.
 */
export const finestOpsPerBucket = 64;
/**
 * Imports of at least this many ops build their pyramid at import, in the worker that made the
 * trace (it is in memory there: no second decode). The browser opens traces above 2M ops from
 * tiles (apps/web tiled-loader.ts), so each of those has its pyramid before its first open, with
 * a margin should that threshold come down. Below, a trace opens whole; its pyramid is built
 * only when a view asks for tiles (`?tiles=1`), at about 0.3 µs an op (under 0.3 s here), rather
 * than costing every small import time and a file of about twice the trace's size.
 */
export const tilesAtImportMinOps = 1_000_000;

const headerFields = [
  'fanout',
  'level0BucketNs',
  'levelCount',
  'trackCount',
  'opCount',
  'rangeCount',
  'nameCount',
  'spanNs',
  'opRowsOffset',
  'opBlockDirOffset',
  'opBlockCount',
  'rangeRowsOffset',
  'rangeBlockDirOffset',
  'rangeBlockCount',
  'trackDirOffset',
  'positionsOffset',
  'tileDirOffset',
  'postingsOffset',
  'postingStartsOffset',
  'postingDirOffset',
  'flowOpsOffset',
  'flowRefsOffset',
  'flowRefCount',
  'namesOffset',
  'namesBytes',
  'baseOffset',
  'baseBytes',
  'skeletonOffset',
  'skeletonBytes',
] as const;

export type TileHeader = { readonly [K in (typeof headerFields)[number]]: number };

/** Magic (8), version (u32), field count (u32), then one f64 per field. */
export const headerBytes = 16 + headerFields.length * 8;

export function writeHeader(h: TileHeader): Buffer {
  const b = Buffer.alloc(headerBytes);
  b.write(tileFileMagic, 0, 'latin1');
  b.writeUInt32LE(tileFileVersion, 8);
  b.writeUInt32LE(headerFields.length, 12);
  headerFields.forEach((field, k) => b.writeDoubleLE(h[field], 16 + k * 8));
  return b;
}

/** Reads a header; throws naming the field when the file is not a tiles file of this version. */
export function readHeader(b: Buffer, fileBytes: number, file: string): TileHeader {
  const magic = b.length >= 8 ? b.toString('latin1', 0, 8) : '';
  if (!magic.startsWith('SSTILES')) {
    throw new Error(`${file}: not a tiles file (magic)`);
  }
  const version = b.length >= 12 ? b.readUInt32LE(8) : 0;
  if (magic !== tileFileMagic || version !== tileFileVersion) {
    throw new Error(`${file}: tiles file version ${version}, expected ${tileFileVersion}`);
  }
  if (b.length < headerBytes || b.readUInt32LE(12) !== headerFields.length) {
    throw new Error(
      `${file}: the header holds ${b.readUInt32LE(12)} fields, expected ${headerFields.length}`,
    );
  }
  const h = Object.fromEntries(
    headerFields.map((field, k) => [field, b.readDoubleLE(16 + k * 8)]),
  ) as TileHeader;
  const end = h.skeletonOffset + h.skeletonBytes;
  if (
    end !== fileBytes ||
    h.namesOffset + h.namesBytes !== h.baseOffset ||
    h.baseOffset + h.baseBytes !== h.skeletonOffset
  ) {
    throw new Error(
      `${file}: sections end at ${end} but the file is ${fileBytes} bytes (truncated?)`,
    );
  }
  if (!(h.fanout >= 2) || !(h.level0BucketNs >= 1) || h.levelCount < 1) {
    throw new Error(`${file}: bad pyramid shape (fanout ${h.fanout}, levels ${h.levelCount})`);
  }
  return h;
}

/** Whether a file is a tiles file of an older version (it is then built again). */
export async function isOlderTileFileAt(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(12);
    const { bytesRead } = await handle.read(head, 0, 12, 0);
    return (
      bytesRead === 12 &&
      head.toString('latin1', 0, 7) === 'SSTILES' &&
      head.readUInt32LE(8) < tileFileVersion
    );
  } finally {
    await handle.close();
  }
}

/**
 * The finest bucket: a power of two of ns, so the span holds at most finestBucketsPerSpan
 * buckets, and no more than one per finestOpsPerBucket ops.
 */
export function finestBucketNs(spanNs: number, opCount: number): number {
  const buckets = Math.max(1, Math.min(finestBucketsPerSpan, opCount / finestOpsPerBucket));
  return 2 ** Math.max(0, Math.ceil(Math.log2(Math.max(1, spanNs) / buckets)));
}

/** Levels until one bucket (or a few) covers the span. */
export function levelCountFor(spanNs: number, level0BucketNs: number, fanout: number): number {
  let levels = 1;
  let bucketNs = level0BucketNs;
  while (Math.max(1, spanNs) / bucketNs > fanout) {
    bucketNs *= fanout;
    levels++;
  }
  return levels;
}
