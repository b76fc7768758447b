import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import type { Trace } from '@streamscope/trace';
import { traceChunks } from '@streamscope/trace';

/** Suffix of files being written; startup recovery deletes any left by a crash. */
export const tempSuffix = '.tmp';

/** A trace file's extension: the codec's container. */
export const traceFileExtension = '.sstrace';

/**
 * Writes a file so that readers see either the old content or the whole new content, never a
 * prefix: write a temp file beside it, fsync it, then rename over the target (atomic on POSIX).
 */
export async function writeFileAtomic(filePath: string, data: Uint8Array | string): Promise<void> {
  const tempPath = `${filePath}.${randomBytes(6).toString('hex')}${tempSuffix}`;
  const handle = await open(tempPath, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tempPath, filePath);
  } catch (error) {
    // A write that failed (a full disk) leaves nothing behind, not even until the next start.
    await rm(tempPath, { force: true });
    throw error;
  }
}

/**
 * Writes a file the same way, synchronously (a worker thread, the CLI): `write` fills the file
 * through its descriptor (a temp file beside the target; `write` syncs it where the file is
 * worth it), which is then renamed into place; on any failure the temp file is removed and
 * nothing is left.
 */
export function writeFileAtomicSync(filePath: string, write: (fd: number) => void): void {
  const tempPath = `${filePath}.${randomBytes(6).toString('hex')}${tempSuffix}`;
  const fd = openSync(tempPath, 'wx', 0o600);
  try {
    try {
      write(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tempPath, filePath);
  } catch (error) {
    rmSync(tempPath, { force: true });
    throw error;
  }
}

/**
 * Writes a trace in the codec's container that way, piece by piece as it is encoded: about one
 * piece (8 MiB) is held, never the whole encoding (gigabytes for a 100M-op trace, held twice
 * over while its buffer grew). Returns the file's size.
 */
export function writeTraceFileAtomic(trace: Trace, filePath: string, signal?: AbortSignal): number {
  let fileBytes = 0;
  writeFileAtomicSync(filePath, (fd) => {
    for (const piece of traceChunks(trace)) {
      signal?.throwIfAborted();
      for (let at = 0; at < piece.length;) {
        at += writeSync(fd, piece, at);
      }
      fileBytes += piece.length;
    }
    fsyncSync(fd);
  });
  return fileBytes;
}
