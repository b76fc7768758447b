/**
 * A file read at any position, synchronously: Node's `fs.readSync` on an open descriptor, or
 * bytes already in memory. The SQLite reader asks it for whole blocks of pages.
 */
export interface RandomAccessFile {
  readonly sizeBytes: number;
  /** Reads up to `target.length` bytes at `position` into `target`; returns how many it read. */
  readAt(target: Uint8Array, position: number): number;
}

/** Bytes in memory as a RandomAccessFile (tests, and inputs that arrived whole). */
export function bytesAsRandomAccess(bytes: Uint8Array): RandomAccessFile {
  return {
    sizeBytes: bytes.length,
    readAt(target, position) {
      const n = Math.max(0, Math.min(target.length, bytes.length - position));
      target.set(bytes.subarray(position, position + n));
      return n;
    },
  };
}

/** Whether `source` is a RandomAccessFile (and not bytes, a Blob or a stream). */
export function isRandomAccessFile(source: unknown): source is RandomAccessFile {
  return (
    typeof source === 'object' &&
    source !== null &&
    typeof (source as { readAt?: unknown }).readAt === 'function' &&
    typeof (source as { sizeBytes?: unknown }).sizeBytes === 'number'
  );
}
