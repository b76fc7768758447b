import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import type { Trace } from '@streamscope/trace';
import { opKindCount, saveTrace } from '@streamscope/trace';
import { tempSuffix } from '../storage/atomic-file.ts';
import { windowOf } from '../storage/trace-window.ts';
import {
  finestBucketNs,
  headerBytes,
  levelCountFor,
  opRowBytes,
  tileFanout,
  tileRecordBytes,
  writeHeader,
} from '../storage/tile-format.ts';

/** Ops written per chunk of the ops section (so the chunk buffer stays a few MB). */
const opChunk = 65_536;

/**
 * Writes the level-of-detail file of `trace` to `filePath` (tile-format.ts): a temporary file
 * renamed into place, so a reader never sees half of one. Memory beyond the trace: one track's
 * records of one level, the start order and the postings (4 bytes per op each).
 */
export function writeTilePyramid(trace: Trace, filePath: string, signal?: AbortSignal): void {
  const tempPath = `${filePath}.${randomBytes(6).toString('hex')}${tempSuffix}`;
  const fd = openSync(tempPath, 'wx', 0o600);
  try {
    writePyramid(trace, fd, signal);
    closeSync(fd);
    renameSync(tempPath, filePath);
  } catch (error) {
    closeSync(fd);
    rmSync(tempPath, { force: true });
    throw error;
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
  let at = headerBytes;
  const write = (b: Uint8Array, length = b.length): void => {
    writeSync(fd, b, 0, length, at);
    at += length;
  };

  // Ops, in trace order.
  const opsOffset = at;
  // Typed views over the chunk (the file is little-endian, as the host: checked at the start).
  const rows = new ArrayBuffer(opChunk * opRowBytes);
  const rowBytes = new Uint8Array(rows);
  const f64 = new Float64Array(rows);
  const u32 = new Uint32Array(rows);
  const u16 = new Uint16Array(rows);
  for (let first = 0; first < n; first += opChunk) {
    signal?.throwIfAborted();
    const last = Math.min(n, first + opChunk);
    rowBytes.fill(0);
    for (let i = first; i < last; i++) {
      const r = i - first;
      f64[r * 5] = ops.startNs[i]!;
      f64[r * 5 + 1] = ops.endNs[i]!;
      f64[r * 5 + 2] = ops.bytes[i]!;
      u32[r * 10 + 6] = ops.nameId[i]!;
      u32[r * 10 + 7] = ops.correlationId[i]!;
      u16[r * 20 + 16] = ops.track[i]!;
      rowBytes[r * 40 + 34] = ops.kind[i]!;
      rowBytes[r * 40 + 35] = ops.flags[i]!;
      rowBytes[r * 40 + 36] = ops.memKinds[i]!;
    }
    write(rowBytes, (last - first) * opRowBytes);
  }

  // Tiles: per level, per track.
  const tileDir = Buffer.alloc(levelCount * trackCount * 16);
  const block = new RecordBlock();
  let bucketNs = level0BucketNs;
  for (let level = 0; level < levelCount; level++) {
    for (let track = 0; track < trackCount; track++) {
      signal?.throwIfAborted();
      block.fill(trace.ops.trackOrder(track), ops.startNs, ops.endNs, ops.kind, bucketNs);
      const d = (level * trackCount + track) * 16;
      tileDir.writeDoubleLE(at, d);
      tileDir.writeDoubleLE(block.count, d + 8);
      write(block.bytes, block.count * tileRecordBytes);
    }
    bucketNs *= tileFanout;
  }
  const tileDirOffset = at;
  write(tileDir);

  // Postings: op indices per name, in start order (a stable counting sort of the start order).
  const names = trace.strings.slice(0);
  const nameCount = names.length;
  const order = startOrder(trace);
  const postingCounts = new Float64Array(nameCount);
  for (let i = 0; i < n; i++) {
    postingCounts[ops.nameId[i]!]!++;
  }
  const postingFirst = new Float64Array(nameCount + 1);
  for (let id = 0; id < nameCount; id++) {
    postingFirst[id + 1] = postingFirst[id]! + postingCounts[id]!;
  }
  const postings = new Uint32Array(n);
  const fillAt = postingFirst.slice(0, nameCount);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const id = ops.nameId[i]!;
    postings[fillAt[id]!] = i;
    fillAt[id]!++;
  }
  const postingsOffset = at;
  write(new Uint8Array(postings.buffer, postings.byteOffset, postings.byteLength));
  const postingDir = Buffer.alloc(nameCount * 16);
  for (let id = 0; id < nameCount; id++) {
    postingDir.writeDoubleLE(postingsOffset + postingFirst[id]! * 4, id * 16);
    postingDir.writeDoubleLE(postingCounts[id]!, id * 16 + 8);
  }
  const postingDirOffset = at;
  write(postingDir);

  const namesJson = Buffer.from(JSON.stringify(names), 'utf8');
  const namesOffset = at;
  write(namesJson);
  const skeleton = saveTrace(windowOf(trace, { fromNs: 0, toNs: 0 }));
  const skeletonOffset = at;
  write(skeleton);

  writeSync(
    fd,
    writeHeader({
      fanout: tileFanout,
      level0BucketNs,
      levelCount,
      trackCount,
      opCount: n,
      nameCount,
      namesBytes: namesJson.length,
      opsOffset,
      postingsOffset,
      namesOffset,
      tileDirOffset,
      postingDirOffset,
      spanNs,
      skeletonOffset,
      skeletonBytes: skeleton.length,
    }),
    0,
    headerBytes,
    0,
  );
}

/**
 * Op indices in start order over all tracks: a merge of the tracks' own start orders (each
 * already sorted), so the cost is ops × log(tracks), with no comparator sort of millions.
 */
export function startOrder(trace: Trace): Uint32Array {
  const startNs = trace.ops.columns().startNs;
  const lists = trace.tracks.map((_, t) => trace.ops.trackOrder(t)).filter((l) => l.length > 0);
  const pos = new Uint32Array(lists.length);
  // A binary min-heap of list indices keyed by the start of each list's next op.
  const heap: number[] = lists.map((_, k) => k);
  const keyOf = (k: number): number => startNs[lists[k]![pos[k]!]!]!;
  const less = (a: number, b: number): boolean => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    return ka < kb || (ka === kb && a < b);
  };
  const down = (from: number): void => {
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && less(heap[l]!, heap[m]!)) {
        m = l;
      }
      if (r < heap.length && less(heap[r]!, heap[m]!)) {
        m = r;
      }
      if (m === i) {
        return;
      }
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) {
    down(i);
  }
  const out = new Uint32Array(trace.ops.count);
  let k = 0;
  while (heap.length > 0) {
    const top = heap[0]!;
    out[k++] = lists[top]![pos[top]!]!;
    pos[top]!++;
    if (pos[top] === lists[top]!.length) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    down(0);
  }
  return out;
}

/** The records of one track at one level, in a buffer reused (and grown) across blocks. */
class RecordBlock {
  bytes = new Uint8Array(1 << 16);
  count = 0;
  private u32 = new Uint32Array(this.bytes.buffer);
  private f32 = new Float32Array(this.bytes.buffer);
  private readonly busyByKind = new Float64Array(opKindCount + 1);
  /** Kinds with busy time in the open bucket (so a flush reads and clears only those). */
  private readonly touched = new Uint8Array(opKindCount + 1);
  private touchedCount = 0;

  fill(
    order: Uint32Array,
    startNs: Float64Array,
    endNs: Float64Array,
    kind: Uint8Array,
    bucketNs: number,
  ): void {
    this.count = 0;
    const busyByKind = this.busyByKind;
    const instantNs = bucketNs / 64;
    let bucket = -1;
    let opCount = 0;
    let busyNs = 0;
    let maxEndNs = 0;
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      const s = startNs[i]!;
      const b = Math.floor(s / bucketNs);
      if (b !== bucket) {
        if (opCount > 0) {
          this.push(bucket, opCount, busyNs, maxEndNs - bucket * bucketNs, bucketNs);
        }
        bucket = b;
        opCount = 0;
        busyNs = 0;
        maxEndNs = 0;
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
