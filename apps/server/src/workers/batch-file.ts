import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BatchKind, CodecError, batchHeaderBytes, batchMagic } from '@streamscope/trace';
import { ApiError } from '../http/api-error.ts';

// Reading a stored trace file (a sequence of codec batches) in a worker, in a few reusable
// buffers: nothing is allocated per chunk read, so a long read leaves no garbage behind. The
// reads are synchronous: this is a worker thread, and a read from the page cache costs less
// than the thread hand-offs of an asynchronous one (which add up on a loaded machine).

// Payload length field of a batch header (little-endian u32 at byte 12).
const payloadLengthAt = 12;
const kindAt = 5;
// Bytes read at a time.
const readBytes = 4 * 1024 * 1024;

/** Where each batch of the file starts, found by reading its headers only; framing checked. */
export interface BatchIndex {
  /** Offset and length of the last meta batch (a run may restate its meta as it goes). */
  readonly lastMeta?: { readonly offset: number; readonly bytes: number };
  readonly sawEnd: boolean;
}

/** Opens a stored trace file, mapping a missing file and a codec error to API errors. */
export async function withTraceFile<T>(
  filePath: string,
  use: (fd: number) => Promise<T>,
): Promise<T> {
  let fd: number;
  try {
    fd = openSync(filePath, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ApiError(404, 'not-found', 'the trace was deleted before it could be read');
    }
    throw error;
  }
  try {
    return await use(fd);
  } catch (error) {
    if (error instanceof CodecError) {
      throw new ApiError(
        500,
        'unreadable-trace',
        `the stored trace cannot be read: ${error.message}`,
      );
    }
    throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Walks the file's batch headers (one small read each, payloads skipped): every batch whole,
 * nothing after the end batch, and an end batch unless `partial`.
 */
export function indexBatches(fd: number, partial: boolean, signal?: AbortSignal): BatchIndex {
  const { size } = fstatSync(fd);
  const header = new Uint8Array(batchHeaderBytes);
  const view = new DataView(header.buffer);
  let lastMeta: BatchIndex['lastMeta'];
  let sawEnd = false;
  for (let offset = 0; offset < size;) {
    signal?.throwIfAborted();
    if (sawEnd) {
      throw new CodecError(`data follows the end batch at byte ${offset}`, offset);
    }
    if (size - offset < batchHeaderBytes) {
      throw new CodecError(`the file ends inside a batch header at byte ${offset}`, offset);
    }
    readSync(fd, header, 0, batchHeaderBytes, offset);
    if (view.getUint32(0, true) !== batchMagic) {
      throw new CodecError(`no batch starts at byte ${offset}`, offset);
    }
    const bytes = batchHeaderBytes + view.getUint32(payloadLengthAt, true);
    if (offset + bytes > size) {
      throw new CodecError(`the file ends inside the batch at byte ${offset}`, offset);
    }
    const kind = view.getUint8(kindAt);
    if (kind === BatchKind.Meta) {
      lastMeta = { offset, bytes };
    }
    sawEnd = kind === BatchKind.End;
    offset += bytes;
  }
  if (!sawEnd && !partial) {
    throw new CodecError('no end batch: the file is truncated', size);
  }
  return { sawEnd, ...(lastMeta !== undefined ? { lastMeta } : {}) };
}

/**
 * Calls `apply` with runs of whole batches, in file order, read through one buffer that is
 * reused (it grows only for a batch larger than itself), and the file offset of the run's first
 * byte, so a decoder's errors can name the file's byte rather than the buffer's. The bytes are
 * valid during the call.
 */
export async function forEachBatchRun(
  fd: number,
  apply: (batches: Uint8Array, fileOffset: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  let buffer = new Uint8Array(readBytes);
  let end = 0;
  let position = 0;
  // File offset of buffer[0]: the bytes before it were handed to `apply` already.
  let bufferAt = 0;
  for (;;) {
    // A turn of the thread's loop between reads: an abort message gets in.
    await nextTurn();
    signal?.throwIfAborted();
    const bytesRead = readSync(fd, buffer, end, buffer.length - end, position);
    position += bytesRead;
    end += bytesRead;
    const whole = wholeBatchesLength(buffer.subarray(0, end));
    if (whole > 0) {
      apply(buffer.subarray(0, whole), bufferAt);
      buffer.copyWithin(0, whole, end);
      end -= whole;
      bufferAt += whole;
    }
    if (bytesRead === 0) {
      if (end > 0) {
        throw new CodecError(
          `the file is truncated: it ends inside a batch (${end} bytes after the last whole one)`,
          position - end,
        );
      }
      return;
    }
    if (end === buffer.length) {
      // One batch larger than the buffer: grow to hold it whole.
      const needed =
        batchHeaderBytes + new DataView(buffer.buffer).getUint32(payloadLengthAt, true);
      const grown = new Uint8Array(Math.max(needed, 2 * buffer.length));
      grown.set(buffer);
      buffer = grown;
    }
  }
}

/** Bytes of `bytes` that hold whole batches, from its start. */
function wholeBatchesLength(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  while (bytes.length - at >= batchHeaderBytes) {
    const next = at + batchHeaderBytes + view.getUint32(at + payloadLengthAt, true);
    if (next > bytes.length) {
      break;
    }
    at = next;
  }
  return at;
}
