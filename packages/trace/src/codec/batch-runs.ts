import { batchHeaderBytes, batchMagic, maxPayloadBytes } from './batch-format.ts';

/**
 * A file read by position: a stored trace on disk (a worker's `readSync` on a descriptor), or
 * bytes in memory. `name` is for messages.
 */
export interface PositionedFile {
  readonly name: string;
  readonly byteLength: number;
  /** Reads up to `into.length` bytes from `position`; the count read, 0 at the end. */
  read(into: Uint8Array, position: number): number;
}

/** Whole batches at `offset` in the file; `bytes` is valid until the next run is asked for. */
export interface BatchRun {
  readonly offset: number;
  readonly bytes: Uint8Array;
}

/** The buffer `batchRuns` reads through; it grows (here) to hold a batch larger than itself. */
export interface ReadBuffer {
  bytes: Uint8Array;
}

// Bytes read at a time: a run holds the whole batches among them (a stored op batch of 32768
// ops takes 0.3 to 1 MB).
const defaultChunkBytes = 1024 * 1024;

/** A read buffer of `bytes` bytes (default 1 MiB). */
export function readBuffer(bytes = defaultChunkBytes): ReadBuffer {
  return { bytes: new Uint8Array(bytes) };
}
// Payload length field of a batch header.
const payloadLengthAt = 12;

/** A file of bytes in memory, read by position (tests, and a browser holding a file's bytes). */
export function bytesFile(name: string, bytes: Uint8Array): PositionedFile {
  return {
    name,
    byteLength: bytes.length,
    read(into, position) {
      const n = Math.max(0, Math.min(into.length, bytes.length - position));
      into.set(bytes.subarray(position, position + n));
      return n;
    },
  };
}

/**
 * The file's batches in file order, as runs of whole batches read through one buffer that is
 * reused (it grows only to hold one batch larger than itself, at most the codec's payload
 * bound). What follows the last whole batch (a truncated file, or a header no decoder accepts)
 * comes last as a run of its own, so the decoder names what is wrong there. `through` is the
 * buffer to read through; the caller may reuse it once the runs are done.
 */
export function* batchRuns(
  file: PositionedFile,
  through: ReadBuffer = readBuffer(),
): Generator<BatchRun, void, undefined> {
  let buffer = through.bytes;
  let offset = 0; // of buffer[0] in the file
  let filled = 0;
  for (;;) {
    const bytesRead = file.read(buffer.subarray(filled), offset + filled);
    filled += bytesRead;
    const whole = wholeBatchesLength(buffer, filled);
    if (whole > 0) {
      yield { offset, bytes: buffer.subarray(0, whole) };
      buffer.copyWithin(0, whole, filled);
      offset += whole;
      filled -= whole;
    }
    if (bytesRead === 0) {
      if (filled > 0) {
        yield { offset, bytes: buffer.subarray(0, filled) };
      }
      return;
    }
    if (filled === buffer.length) {
      // One batch larger than the buffer: grow to hold it whole, unless its header is not one.
      const view = new DataView(buffer.buffer, buffer.byteOffset, batchHeaderBytes);
      const payloadBytes = view.getUint32(payloadLengthAt, true);
      if (view.getUint32(0, true) !== batchMagic || payloadBytes > maxPayloadBytes) {
        yield { offset, bytes: buffer.subarray(0, filled) };
        return;
      }
      const grown = new Uint8Array(Math.max(batchHeaderBytes + payloadBytes, 2 * buffer.length));
      grown.set(buffer);
      buffer = grown;
      through.bytes = grown;
    }
  }
}

/** Bytes of `bytes` (its first `filled`) that hold whole batches, from its start. */
function wholeBatchesLength(bytes: Uint8Array, filled: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, filled);
  let at = 0;
  while (filled - at >= batchHeaderBytes) {
    const next = at + batchHeaderBytes + view.getUint32(at + payloadLengthAt, true);
    if (next > filled) {
      break;
    }
    at = next;
  }
  return at;
}
