// The level-of-detail file kept beside a stored trace (`<id>.tiles`), read by offset, never
// whole. Little-endian. Sections, in file order:
//   header      (headerBytes)  the fields of TileHeader at the offsets below
//   ops         opRowBytes per op, in trace order: what a details or search answer needs
//   tiles       per level, per track, tileRecordBytes per non-empty bucket, sorted by bucket
//   tile dir    levelCount * trackCount * (f64 offset, f64 record count), level-major
//   postings    per string id, the u32 op indices that carry that name, in start order
//   posting dir nameCount * (f64 offset, f64 count)
//   names       the trace's strings as a JSON array (id = index)
//   skeleton    the trace with only its ops and ranges at time 0 (every track and string), in
//               the codec's container: what a tiled view opens with

export const tileFileMagic = 'SSTILES1';
export const tileFileVersion = 1;
export const tileFileExtension = '.tiles';
export const headerBytes = 112;
/** f64 startNs, f64 endNs, f64 bytes, u32 nameId, u32 correlationId, u16 track, u8 kind, u8 flags, u8 memKinds, 3 spare. */
export const opRowBytes = 40;
/** u32 bucket, u32 ops, f32 busyNs, f32 spanNs, u16 kinds, 2 spare. */
export const tileRecordBytes = 20;
/** Buckets of a level merge this many of the level below. */
export const tileFanout = 4;
/** The finest level splits the trace's span into at most this many buckets. */
export const finestBucketsPerSpan = 2 ** 20;
/**
 * Ops per bucket of the finest level, on average over the span: finer levels would hold about
 * one op per record, which costs more than the exact ops a view fetches at that zoom.
 */
export const finestOpsPerBucket = 64;

export interface TileHeader {
  readonly fanout: number;
  readonly level0BucketNs: number;
  readonly levelCount: number;
  readonly trackCount: number;
  readonly opCount: number;
  readonly nameCount: number;
  readonly namesBytes: number;
  readonly opsOffset: number;
  readonly postingsOffset: number;
  readonly namesOffset: number;
  readonly tileDirOffset: number;
  readonly postingDirOffset: number;
  readonly spanNs: number;
  readonly skeletonOffset: number;
  readonly skeletonBytes: number;
}

export function writeHeader(h: TileHeader): Buffer {
  const b = Buffer.alloc(headerBytes);
  b.write(tileFileMagic, 0, 'latin1');
  b.writeUInt32LE(tileFileVersion, 8);
  b.writeUInt32LE(h.fanout, 12);
  b.writeDoubleLE(h.level0BucketNs, 16);
  b.writeUInt32LE(h.levelCount, 24);
  b.writeUInt32LE(h.trackCount, 28);
  b.writeDoubleLE(h.opCount, 32);
  b.writeUInt32LE(h.nameCount, 40);
  b.writeUInt32LE(h.namesBytes, 44);
  b.writeDoubleLE(h.opsOffset, 48);
  b.writeDoubleLE(h.postingsOffset, 56);
  b.writeDoubleLE(h.namesOffset, 64);
  b.writeDoubleLE(h.tileDirOffset, 72);
  b.writeDoubleLE(h.postingDirOffset, 80);
  b.writeDoubleLE(h.spanNs, 88);
  b.writeDoubleLE(h.skeletonOffset, 96);
  b.writeDoubleLE(h.skeletonBytes, 104);
  return b;
}

/** Reads a header; throws naming the field when the file is not a tiles file of this version. */
export function readHeader(b: Buffer, fileBytes: number, file: string): TileHeader {
  if (b.length < headerBytes || b.toString('latin1', 0, 8) !== tileFileMagic) {
    throw new Error(`${file}: not a tiles file (magic)`);
  }
  const version = b.readUInt32LE(8);
  if (version !== tileFileVersion) {
    throw new Error(`${file}: tiles file version ${version}, expected ${tileFileVersion}`);
  }
  const h: TileHeader = {
    fanout: b.readUInt32LE(12),
    level0BucketNs: b.readDoubleLE(16),
    levelCount: b.readUInt32LE(24),
    trackCount: b.readUInt32LE(28),
    opCount: b.readDoubleLE(32),
    nameCount: b.readUInt32LE(40),
    namesBytes: b.readUInt32LE(44),
    opsOffset: b.readDoubleLE(48),
    postingsOffset: b.readDoubleLE(56),
    namesOffset: b.readDoubleLE(64),
    tileDirOffset: b.readDoubleLE(72),
    postingDirOffset: b.readDoubleLE(80),
    spanNs: b.readDoubleLE(88),
    skeletonOffset: b.readDoubleLE(96),
    skeletonBytes: b.readDoubleLE(104),
  };
  const end = h.skeletonOffset + h.skeletonBytes;
  if (end !== fileBytes || h.namesOffset + h.namesBytes !== h.skeletonOffset) {
    throw new Error(
      `${file}: sections end at ${end} but the file is ${fileBytes} bytes (truncated?)`,
    );
  }
  if (!(h.fanout >= 2) || !(h.level0BucketNs >= 1) || h.levelCount < 1) {
    throw new Error(`${file}: bad pyramid shape (fanout ${h.fanout}, levels ${h.levelCount})`);
  }
  return h;
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
