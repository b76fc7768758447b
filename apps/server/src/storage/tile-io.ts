import type { FileHandle } from 'node:fs/promises';
import { blockDirFields, trackDirFields } from './tile-format.ts';

// Reading helpers of the tiles file (tile-file.ts).

/**
 * Per block, the latest end of its track's blocks up to and including it: non-decreasing within
 * a track, so a window's first block is a binary search.
 */
export function reachOf(
  blocks: Float64Array,
  trackDir: Float64Array,
  firstField: number,
  countField: number,
): Float64Array {
  const reach = new Float64Array(blocks.length / blockDirFields);
  for (let d = 0; d < trackDir.length; d += trackDirFields) {
    const first = trackDir[d + firstField]!;
    let latest = -Infinity;
    for (let k = first; k < first + trackDir[d + countField]!; k++) {
      latest = Math.max(latest, blocks[k * blockDirFields + 3]!);
      reach[k] = latest;
    }
  }
  return reach;
}

/** `length` bytes at `position`, all of them (a short read is the file ending early). */
export async function readAt(
  handle: FileHandle,
  position: number,
  length: number,
): Promise<Buffer> {
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

export function f64(b: Buffer): Float64Array {
  const out = new Float64Array(b.length / 8);
  for (let k = 0; k < out.length; k++) {
    out[k] = b.readDoubleLE(k * 8);
  }
  return out;
}
