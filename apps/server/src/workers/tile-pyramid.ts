import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { Trace } from '@streamscope/trace';
import { opKindCount } from '@streamscope/trace';
import { tempSuffix } from '../storage/atomic-file.ts';
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
  const ops = trace.ops.columns();
  const n = ops.count;
  const spanNs = trace.spanNs();
  const level0BucketNs = finestBucketNs(spanNs);
  const levelCount = levelCountFor(spanNs, level0BucketNs, tileFanout);
  const trackCount = trace.tracks.length;
  let at = headerBytes;
  const write = (b: Uint8Array, length = b.length): void => {
    writeSync(fd, b, 0, length, at);
    at += length;
  };

  // Ops, in trace order.
  const opsOffset = at;
  const rows = Buffer.alloc(opChunk * opRowBytes);
  for (let first = 0; first < n; first += opChunk) {
    signal?.throwIfAborted();
    const last = Math.min(n, first + opChunk);
    for (let i = first; i < last; i++) {
      const o = (i - first) * opRowBytes;
      rows.writeDoubleLE(ops.startNs[i]!, o);
      rows.writeDoubleLE(ops.endNs[i]!, o + 8);
      rows.writeDoubleLE(ops.bytes[i]!, o + 16);
      rows.writeUInt32LE(ops.nameId[i]!, o + 24);
      rows.writeUInt32LE(ops.correlationId[i]!, o + 28);
      rows.writeUInt16LE(ops.track[i]!, o + 32);
      rows[o + 34] = ops.kind[i]!;
      rows[o + 35] = ops.flags[i]!;
      rows[o + 36] = ops.memKinds[i]!;
    }
    write(rows, (last - first) * opRowBytes);
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
  bytes = Buffer.alloc(1 << 16);
  count = 0;
  private readonly busyByKind = new Float64Array(opKindCount + 1);

  fill(
    order: Uint32Array,
    startNs: Float64Array,
    endNs: Float64Array,
    kind: Uint8Array,
    bucketNs: number,
  ): void {
    this.count = 0;
    const busyByKind = this.busyByKind;
    let bucket = -1;
    let opCount = 0;
    let busyNs = 0;
    let maxEndNs = 0;
    const flush = (): void => {
      if (opCount > 0) {
        this.push(bucket, opCount, busyNs, maxEndNs - bucket * bucketNs, bucketNs);
      }
      opCount = 0;
      busyNs = 0;
      maxEndNs = 0;
    };
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      const s = startNs[i]!;
      const b = Math.floor(s / bucketNs);
      if (b !== bucket) {
        flush();
        bucket = b;
      }
      const durNs = endNs[i]! - s;
      opCount++;
      busyNs += durNs;
      // Instants weigh a little, so a bucket of only event records still takes their kind.
      const c = Math.min(kind[i]!, opKindCount);
      busyByKind[c] = busyByKind[c]! + durNs + bucketNs / 64;
      if (endNs[i]! > maxEndNs) {
        maxEndNs = endNs[i]!;
      }
    }
    flush();
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
      const grown = Buffer.alloc(this.bytes.length * 2);
      this.bytes.copy(grown);
      this.bytes = grown;
    }
    // Dominant kind by busy time, and a second one when it kept the bucket a third as busy.
    const busy = this.busyByKind;
    let best = 0;
    let second = -1;
    for (let c = 1; c < busy.length; c++) {
      if (busy[c]! > busy[best]!) {
        second = best;
        best = c;
      } else if (busy[c]! > 0 && (second < 0 || busy[c]! > busy[second]!)) {
        second = c;
      }
    }
    const mix =
      second >= 0 && busy[second]! > 0 && busy[second]! * 3 >= busy[best]! ? second : 0xff;
    busy.fill(0);
    this.bytes.writeUInt32LE(bucket, o);
    this.bytes.writeUInt32LE(opCount, o + 4);
    this.bytes.writeFloatLE(busyNs, o + 8);
    this.bytes.writeFloatLE(Math.max(bucketNs, spanNs), o + 12);
    this.bytes.writeUInt16LE(best | (mix << 8), o + 16);
    this.count++;
  }
}
