import { writeSync } from 'node:fs';
import { endianness } from 'node:os';
import type { OpColumns, Trace } from '@streamscope/trace';
import { noRef, saveTrace } from '@streamscope/trace';
import { writeFileAtomicSync } from '../storage/atomic-file.ts';
import { buildFlowIndex } from '../storage/tile-flows.ts';
import { windowOf } from '../storage/trace-window.ts';
import {
  blockDirFields,
  finestBucketNs,
  headerBytes,
  levelCountFor,
  rowsPerBlock,
  tileFanout,
  tileFileExtension,
  tileRecordBytes,
  tilesAtImportMinOps,
  trackDirFields,
  writeHeader,
} from '../storage/tile-format.ts';
import { KindEntries, RecordBlock, coarser, entriesOfOps } from './tile-levels.ts';
import {
  OpCol,
  RangeCol,
  packOpKinds,
  RowBlockWriter,
  opRowFields,
  rangeRowFields,
} from '../storage/tile-rows.ts';
import { rangeTrackOrder, startOrder } from './tile-order.ts';

/**
 * Writes the level-of-detail file of `trace` to `filePath` (tile-format.ts): a temporary file
 * renamed into place, so a reader never sees half of one. Memory beyond the trace: one track's
 * columns in start order (17 bytes an op), the row positions, the start order and the postings
 * (4 bytes an op each), the postings' starts (8), then the flow index (4 bytes an op and 12 a flow end).
 */
export function writeTilePyramid(trace: Trace, filePath: string, signal?: AbortSignal): void {
  writeFileAtomicSync(filePath, (fd) => writePyramid(trace, fd, signal));
}

/**
 * At import (in the worker that made `trace`): the pyramid of a trace of at least
 * tilesAtImportMinOps ops, written beside `besidePath` (`<besidePath>.tiles`), for the caller to
 * move beside the stored trace once it is stored (`tilesPath`); nothing for a smaller trace.
 */
export function pyramidAtImport(
  trace: Trace,
  besidePath: string,
  signal?: AbortSignal,
): { tilesPath?: string } {
  if (trace.ops.count < tilesAtImportMinOps) {
    return {};
  }
  const tilesPath = `${besidePath}${tileFileExtension}`;
  writeTilePyramid(trace, tilesPath, signal);
  return { tilesPath };
}

/** A file written from offset headerBytes on, in order. */
class Out {
  at = headerBytes;
  constructor(private readonly fd: number) {}
  write(b: Uint8Array, length = b.length): void {
    writeSync(this.fd, b, 0, length, this.at);
    this.at += length;
  }
  writeF64(values: Float64Array): void {
    this.write(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }
}

function writePyramid(trace: Trace, fd: number, signal: AbortSignal | undefined): void {
  if (endianness() !== 'LE') {
    throw new Error(
      'the tiles file is written through typed arrays: a little-endian host is needed',
    );
  }
  const ops = trace.ops.columns();
  const n = ops.count;
  const spanNs = trace.spanNs();
  const level0BucketNs = finestBucketNs(spanNs, n);
  const levelCount = levelCountFor(spanNs, level0BucketNs, tileFanout);
  const trackCount = trace.tracks.length;
  const out = new Out(fd);

  // Per track: its op rows in blocks, then its tiles of every level (the directories say where).
  const opRowsOffset = out.at;
  const trackDir = new Float64Array(trackCount * trackDirFields);
  const opBlocks: number[] = [];
  const tileDir = new Float64Array(levelCount * trackCount * 2);
  const positions = new Uint32Array(n);
  const rows = new Float64Array(rowsPerBlock * opRowFields.length);
  const writer = new RowBlockWriter(opRowFields, rowsPerBlock);
  const records = new RecordBlock();
  const entriesA = new KindEntries();
  const entriesB = new KindEntries();
  let position = 0;
  for (let track = 0; track < trackCount; track++) {
    signal?.throwIfAborted();
    const order = trace.ops.trackOrder(track);
    const count = order.length;
    // The track's columns in start order, gathered once: each level below is a sequential pass.
    const startNs = new Float64Array(count);
    const endNs = new Float64Array(count);
    const kind = new Uint8Array(count);
    const d = track * trackDirFields;
    trackDir[d] = opBlocks.length / blockDirFields;
    trackDir[d + 2] = count;
    trackDir[d + 3] = position;
    for (let k = 0; k < count; k++) {
      const i = order[k]!;
      startNs[k] = ops.startNs[i]!;
      endNs[k] = ops.endNs[i]!;
      kind[k] = ops.kind[i]!;
      positions[i] = position + k;
    }
    position += count;
    for (let first = 0; first < count; first += rowsPerBlock) {
      const last = Math.min(count, first + rowsPerBlock);
      const maxEndNs = fillOpRows(ops, order, first, last, rows);
      const block = writer.encode(rows, last - first);
      opBlocks.push(out.at, block.length, rows[OpCol.startNs]!, maxEndNs);
      out.write(block);
    }
    trackDir[d + 1] = opBlocks.length / blockDirFields - trackDir[d];
    let bucketNs = level0BucketNs;
    let entries = entriesA;
    let next = entriesB;
    entriesOfOps(count, startNs, endNs, kind, bucketNs, entries);
    for (let level = 0; level < levelCount; level++) {
      records.fill(entries, bucketNs);
      const t = (level * trackCount + track) * 2;
      tileDir[t] = out.at;
      tileDir[t + 1] = records.count;
      out.write(records.bytes, records.count * tileRecordBytes);
      coarser(entries, tileFanout, next);
      [entries, next] = [next, entries];
      bucketNs *= tileFanout;
    }
  }
  const opBlockDirOffset = out.at;
  out.writeF64(Float64Array.from(opBlocks));

  // Ranges, per track in start order, in blocks like the ops.
  const rangeRowsOffset = out.at;
  const rangeBlocks = writeRanges(trace, out, trackDir);
  const rangeBlockDirOffset = out.at;
  out.writeF64(Float64Array.from(rangeBlocks));

  const trackDirOffset = out.at;
  out.writeF64(trackDir);
  const positionsOffset = out.at;
  out.write(new Uint8Array(positions.buffer));
  const tileDirOffset = out.at;
  out.writeF64(tileDir);

  signal?.throwIfAborted();
  const { postingsOffset, postingStartsOffset, postingDirOffset, nameCount } = writePostings(
    trace,
    positions,
    out,
  );

  signal?.throwIfAborted();
  const flowIndex = buildFlowIndex(trace.flows.columns(), n);
  const flowOpsOffset = out.at;
  out.write(new Uint8Array(flowIndex.refOps.buffer));
  const flowRefsOffset = out.at;
  out.write(flowIndex.refs);

  const namesJson = Buffer.from(JSON.stringify(trace.strings.slice(0)), 'utf8');
  const namesOffset = out.at;
  out.write(namesJson);
  const base = saveTrace(windowOf(trace, { fromNs: 0, toNs: 0, tracks: [] }));
  const baseOffset = out.at;
  out.write(base);
  const skeleton = saveTrace(windowOf(trace, { fromNs: 0, toNs: 0 }));
  const skeletonOffset = out.at;
  out.write(skeleton);

  const header = writeHeader({
    fanout: tileFanout,
    level0BucketNs,
    levelCount,
    trackCount,
    opCount: n,
    rangeCount: trace.ranges.count,
    nameCount,
    spanNs,
    opRowsOffset,
    opBlockDirOffset,
    opBlockCount: opBlocks.length / blockDirFields,
    rangeRowsOffset,
    rangeBlockDirOffset,
    rangeBlockCount: rangeBlocks.length / blockDirFields,
    trackDirOffset,
    positionsOffset,
    tileDirOffset,
    postingsOffset,
    postingStartsOffset,
    postingDirOffset,
    flowOpsOffset,
    flowRefsOffset,
    flowRefCount: flowIndex.refCount,
    namesOffset,
    namesBytes: namesJson.length,
    baseOffset,
    baseBytes: base.length,
    skeletonOffset,
    skeletonBytes: skeleton.length,
  });
  writeSync(fd, header, 0, headerBytes, 0);
}

/** Entries of the postings and their starts written at once (a chunk of each, reused). */
const postingsPerWrite = 1 << 16;

/**
 * Postings: row positions per name, in start order (a stable counting sort of the start order),
 * then beside each its op's start as stored (whole ns: search marks read these alone), then the
 * posting directory. Memory: the start order and the postings' op indices (4 bytes an op each),
 * the two written a chunk at a time; both go when it returns.
 */
function writePostings(
  trace: Trace,
  positions: Uint32Array,
  out: Out,
): {
  postingsOffset: number;
  postingStartsOffset: number;
  postingDirOffset: number;
  nameCount: number;
} {
  const ops = trace.ops.columns();
  const n = ops.count;
  const nameCount = trace.strings.count;
  const order = startOrder(trace);
  const postingFirst = new Float64Array(nameCount + 1);
  for (let i = 0; i < n; i++) {
    postingFirst[ops.nameId[i]! + 1]!++;
  }
  const postingDir = new Float64Array(nameCount * 2);
  for (let id = 0; id < nameCount; id++) {
    postingDir[id * 2 + 1] = postingFirst[id + 1]!;
    postingFirst[id + 1] = postingFirst[id]! + postingFirst[id + 1]!;
  }
  // The op index of each posting; its position and start are looked up as they are written.
  const postingOps = new Uint32Array(n);
  const fillAt = postingFirst.slice(0, nameCount);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const id = ops.nameId[i]!;
    postingOps[fillAt[id]!] = i;
    fillAt[id]!++;
  }
  const postingsOffset = out.at;
  const chunk = new Uint32Array(postingsPerWrite);
  for (let first = 0; first < n; first += postingsPerWrite) {
    const count = Math.min(postingsPerWrite, n - first);
    for (let k = 0; k < count; k++) {
      chunk[k] = positions[postingOps[first + k]!]!;
    }
    out.write(new Uint8Array(chunk.buffer), count * 4);
  }
  const postingStartsOffset = out.at;
  const starts = new Float64Array(postingsPerWrite);
  for (let first = 0; first < n; first += postingsPerWrite) {
    const count = Math.min(postingsPerWrite, n - first);
    for (let k = 0; k < count; k++) {
      starts[k] = Math.round(ops.startNs[postingOps[first + k]!]!);
    }
    out.write(new Uint8Array(starts.buffer), count * 8);
  }
  for (let id = 0; id < nameCount; id++) {
    postingDir[id * 2] = postingsOffset + postingFirst[id]! * 4;
  }
  const postingDirOffset = out.at;
  out.writeF64(postingDir);
  return { postingsOffset, postingStartsOffset, postingDirOffset, nameCount };
}

/**
 * Rows of ops `order[first…last)` as the codec stores them (trace-encoder.ts: whole ns, a
 * duration never negative, whole bytes); returns their latest end.
 */
function fillOpRows(
  ops: OpColumns,
  order: Uint32Array,
  first: number,
  last: number,
  rows: Float64Array,
): number {
  const { startNs, endNs, nameId, correlationId, bytes, refId, kind, flags, memKinds } = ops;
  const f = opRowFields.length;
  let maxEndNs = -Infinity;
  for (let k = first, r = 0; k < last; k++, r += f) {
    const i = order[k]!;
    const s = Math.round(startNs[i]!);
    const durNs = Math.max(0, Math.round(endNs[i]!) - s);
    if (s + durNs > maxEndNs) {
      maxEndNs = s + durNs;
    }
    rows[r + OpCol.startNs] = s;
    rows[r + OpCol.durNs] = durNs;
    rows[r + OpCol.nameId] = nameId[i]!;
    rows[r + OpCol.correlationId] = correlationId[i]!;
    rows[r + OpCol.index] = i;
    rows[r + OpCol.bytes] = Math.round(bytes[i]!);
    // noRef (2^32 - 1) wraps to 0.
    rows[r + OpCol.refIdPlus1] = refId[i]! === noRef ? 0 : refId[i]! + 1;
    rows[r + OpCol.kinds] = packOpKinds(kind[i]!, flags[i]!, memKinds[i]!);
  }
  return maxEndNs;
}

/** Writes every track's ranges in blocks; fills the track directory's range fields. */
function writeRanges(trace: Trace, out: Out, trackDir: Float64Array): number[] {
  const ranges = trace.ranges.columns();
  const { order, trackFirst } = rangeTrackOrder(trace);
  const rows = new Float64Array(rowsPerBlock * rangeRowFields.length);
  const writer = new RowBlockWriter(rangeRowFields, rowsPerBlock);
  const blocks: number[] = [];
  for (let track = 0; track < trace.tracks.length; track++) {
    const d = track * trackDirFields;
    trackDir[d + 4] = blocks.length / blockDirFields;
    const from = trackFirst[track]!;
    const to = trackFirst[track + 1]!;
    trackDir[d + 6] = to - from;
    for (let first = from; first < to; first += rowsPerBlock) {
      const last = Math.min(to, first + rowsPerBlock);
      let maxEndNs = -Infinity;
      for (let k = first; k < last; k++) {
        const i = order[k]!;
        const s = Math.round(ranges.startNs[i]!);
        const durNs = Math.max(0, Math.round(ranges.endNs[i]!) - s);
        maxEndNs = Math.max(maxEndNs, s + durNs);
        const r = (k - first) * rangeRowFields.length;
        rows[r + RangeCol.startNs] = s;
        rows[r + RangeCol.durNs] = durNs;
        rows[r + RangeCol.nameId] = ranges.nameId[i]!;
        rows[r + RangeCol.domainId] = ranges.domainId[i]!;
        rows[r + RangeCol.depth] = ranges.depth[i]!;
        rows[r + RangeCol.kind] = ranges.kind[i]!;
        rows[r + RangeCol.index] = i;
      }
      const block = writer.encode(rows, last - first);
      blocks.push(out.at, block.length, rows[RangeCol.startNs]!, maxEndNs);
      out.write(block);
    }
    trackDir[d + 5] = blocks.length / blockDirFields - trackDir[d + 4]!;
  }
  return blocks;
}
