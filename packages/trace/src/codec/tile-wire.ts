/**
 * The tiles the server sends for one level of a trace's level-of-detail pyramid: per track, the
 * non-empty buckets of a time range, as columns. Shared by the server (encodes) and the browser
 * (decodes); a bucket is `bucketNs` wide and starts at `bucket * bucketNs` (ns since the origin).
 *
 * Layout (little-endian): u32 magic, u32 level, f64 bucketNs, u32 trackCount, u32 total, then
 * u32 counts[trackCount], u32 buckets[total], u32 opCounts[total], f32 busyNs[total],
 * f32 spanNs[total], u16 kinds[total] (dominant kind | second kind << 8, 0xff = none).
 */
export interface TileSet {
  readonly level: number;
  readonly bucketNs: number;
  /** Records of track t are [trackFirst[t], trackFirst[t + 1]), sorted by bucket. */
  readonly trackFirst: Uint32Array;
  readonly buckets: Uint32Array;
  /** Ops that start in the bucket. */
  readonly opCounts: Uint32Array;
  /** Summed duration of those ops, ns. */
  readonly busyNs: Float32Array;
  /** From the bucket's start to the latest end of its ops, ns (at least bucketNs). */
  readonly spanNs: Float32Array;
  readonly kinds: Uint16Array;
}

export const tileWireMagic = 0x31_4c_49_54; // 'TIL1'
const headerBytes = 24;
/** Bytes one bucket takes on the wire (and in the pyramid file). */
const tileRecordBytes = 18;
/** No second kind in a bucket. */
export const noKind = 0xff;

export function tileWireBytes(trackCount: number, total: number): number {
  return headerBytes + trackCount * 4 + total * tileRecordBytes;
}

/** Encodes `set` (its arrays may be longer than the counts say: only what counts names goes). */
export function encodeTiles(set: TileSet): Uint8Array<ArrayBuffer> {
  const trackCount = set.trackFirst.length - 1;
  const total = set.trackFirst[trackCount]!;
  const bytes = new Uint8Array(tileWireBytes(trackCount, total));
  const view = new DataView(bytes.buffer);
  view.setUint32(0, tileWireMagic, true);
  view.setUint32(4, set.level, true);
  view.setFloat64(8, set.bucketNs, true);
  view.setUint32(16, trackCount, true);
  view.setUint32(20, total, true);
  const columns = columnsOf(bytes.buffer, trackCount, total);
  for (let t = 0; t < trackCount; t++) {
    columns.counts[t] = set.trackFirst[t + 1]! - set.trackFirst[t]!;
  }
  columns.buckets.set(set.buckets.subarray(0, total));
  columns.opCounts.set(set.opCounts.subarray(0, total));
  columns.busyNs.set(set.busyNs.subarray(0, total));
  columns.spanNs.set(set.spanNs.subarray(0, total));
  columns.kinds.set(set.kinds.subarray(0, total));
  return bytes;
}

/** Decodes a tiles response; throws naming what is wrong with a malformed one. */
export function decodeTiles(buffer: ArrayBuffer): TileSet {
  if (buffer.byteLength < headerBytes) {
    throw new Error(`a tiles response needs ${headerBytes} header bytes, got ${buffer.byteLength}`);
  }
  const view = new DataView(buffer);
  if (view.getUint32(0, true) !== tileWireMagic) {
    throw new Error('a tiles response must start with the TIL1 magic');
  }
  const trackCount = view.getUint32(16, true);
  const total = view.getUint32(20, true);
  const expected = tileWireBytes(trackCount, total);
  if (buffer.byteLength !== expected) {
    throw new Error(
      `a tiles response of ${trackCount} tracks and ${total} buckets is ${expected} bytes, got ${buffer.byteLength}`,
    );
  }
  const columns = columnsOf(buffer, trackCount, total);
  const trackFirst = new Uint32Array(trackCount + 1);
  for (let t = 0; t < trackCount; t++) {
    trackFirst[t + 1] = trackFirst[t]! + columns.counts[t]!;
  }
  if (trackFirst[trackCount] !== total) {
    throw new Error(
      `a tiles response's track counts add up to ${trackFirst[trackCount]}, not ${total}`,
    );
  }
  return {
    level: view.getUint32(4, true),
    bucketNs: view.getFloat64(8, true),
    trackFirst,
    buckets: columns.buckets,
    opCounts: columns.opCounts,
    busyNs: columns.busyNs,
    spanNs: columns.spanNs,
    kinds: columns.kinds,
  };
}

/** Bytes a decoded set holds (what a cache of sets accounts for). */
export function tileSetBytes(set: TileSet): number {
  return (
    set.trackFirst.byteLength +
    set.buckets.byteLength +
    set.opCounts.byteLength +
    set.busyNs.byteLength +
    set.spanNs.byteLength +
    set.kinds.byteLength
  );
}

function columnsOf(buffer: ArrayBuffer, trackCount: number, total: number) {
  let at = headerBytes;
  const take = (bytesPer: number, n: number): number => {
    const start = at;
    at += bytesPer * n;
    return start;
  };
  return {
    counts: new Uint32Array(buffer, take(4, trackCount), trackCount),
    buckets: new Uint32Array(buffer, take(4, total), total),
    opCounts: new Uint32Array(buffer, take(4, total), total),
    busyNs: new Float32Array(buffer, take(4, total), total),
    spanNs: new Float32Array(buffer, take(4, total), total),
    kinds: new Uint16Array(buffer, take(2, total), total),
  };
}
