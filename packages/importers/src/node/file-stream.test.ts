import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileChunkBytes, streamOf } from './file-stream.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'file-stream-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('streamOf', () => {
  it("hands out the file's bytes in order, in chunks of two buffers taken in turn", async () => {
    const bytes = randomBytes(3 * fileChunkBytes + 12_345);
    const file = path.join(dir, 'three-and-a-bit.bin');
    await writeFile(file, bytes);
    const copies: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    for await (const chunk of streamOf(file)) {
      copies.push(Buffer.from(chunk)); // a copy: the buffer is filled again after the next chunk
      buffers.add(chunk.buffer);
    }
    expect(copies.map((c) => c.length)).toEqual([
      fileChunkBytes,
      fileChunkBytes,
      fileChunkBytes,
      12_345,
    ]);
    expect(Buffer.concat(copies).equals(bytes)).toBe(true);
    expect(buffers.size).toBe(2);
  });

  it('yields nothing for an empty file, and a reader that stops early closes it', async () => {
    const empty = path.join(dir, 'empty.bin');
    await writeFile(empty, new Uint8Array(0));
    const seen: number[] = [];
    for await (const chunk of streamOf(empty)) {
      seen.push(chunk.length);
    }
    expect(seen).toEqual([]);

    const file = path.join(dir, 'two.bin');
    await writeFile(file, randomBytes(2 * fileChunkBytes));
    const chunks = streamOf(file);
    expect((await chunks.next()).value).toHaveLength(fileChunkBytes);
    // The read of the second chunk is in flight: return() waits for it, then closes the file.
    expect(await chunks.return(undefined)).toEqual({ done: true, value: undefined });
    expect(await chunks.next()).toEqual({ done: true, value: undefined });
  });

  it('rejects for a file that is not there', async () => {
    await expect(streamOf(path.join(dir, 'missing.bin')).next()).rejects.toThrow(/ENOENT/);
  });
});
