import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { RandomAccessFile } from '../sqlite-reader/random-access.ts';

/** A file open for reads at any position (the importers read a SQLite export page by page). */
export interface OpenRandomAccessFile extends RandomAccessFile {
  close(): void;
}

/** Opens `filePath` read-only; the caller closes it whatever happens. */
export function openRandomAccess(filePath: string): OpenRandomAccessFile {
  const fd = openSync(filePath, 'r');
  try {
    const sizeBytes = fstatSync(fd).size;
    return {
      sizeBytes,
      readAt: (target, position) => readSync(fd, target, 0, target.length, position),
      close: () => closeSync(fd),
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
