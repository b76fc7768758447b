import { open } from 'node:fs/promises';

/** Bytes of each chunk a file is read in. */
export const fileChunkBytes = 1 << 20;

/**
 * A file as the importers read it: 1 MiB chunks read into two buffers in turn, the next chunk
 * read while the one handed out is scanned. A chunk's bytes are valid until the next chunk is
 * asked for (the importers copy what they keep: `ImportSource`). A fresh buffer for each chunk
 * (a read stream's) cost a 1M-GPU-op import a mark-compact every ~70 ms from the outside memory
 * it adds, and fresh pages to fault in: 5% of an nsys JSON import's CPU time and 11% of a kineto
 * one's (`pnpm bench scale`). A Blob of the file (`openAsBlob`) hands out 64 KiB pieces, each a
 * turn of its reader: slower still.
 */
export async function* streamOf(file: string): AsyncGenerator<Uint8Array> {
  const handle = await open(file, 'r');
  const buffers = [new Uint8Array(fileChunkBytes), new Uint8Array(fileChunkBytes)];
  let reading = handle.read(buffers[0]!, 0, fileChunkBytes, 0);
  try {
    for (let at = 0, k = 0; ; k ^= 1) {
      const { bytesRead } = await reading;
      if (bytesRead === 0) {
        return;
      }
      at += bytesRead;
      // The buffer of the chunk before this one: its reader has asked for this one.
      reading = handle.read(buffers[k ^ 1]!, 0, fileChunkBytes, at);
      const chunk = buffers[k]!;
      yield bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead);
    }
  } finally {
    // A reader that stops early (an error, a cancel): the read in flight ends before the close.
    await reading.catch(() => undefined);
    await handle.close();
  }
}
