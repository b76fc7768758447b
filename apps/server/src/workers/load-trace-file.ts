import { createReadStream } from 'node:fs';
import type { Trace } from '@streamscope/trace';
import { CodecError, TraceDecoder, batchHeaderBytes } from '@streamscope/trace';
import { ApiError } from '../http/api-error.ts';
import type { TraceFileRef } from './protocol.ts';

// Payload length field of a batch header (little-endian u32 at byte 12).
const payloadLengthAt = 12;
// Columns sized up front at most for this many ops (about 1.5 GB); beyond, they grow as they load.
const maxReservedOps = 32 * 1024 * 1024;

/**
 * Decodes a stored trace file as it is read, a whole batch at a time, so the file's bytes are
 * never all in memory beside the decoded trace. A partial file (a live run's snapshot) may end
 * without its end batch; any other must have it.
 */
export async function loadTraceFile(ref: TraceFileRef, signal?: AbortSignal): Promise<Trace> {
  const decoder = new TraceDecoder();
  if (ref.opCount !== undefined && ref.opCount > 0) {
    // A hint from the trace's row: bounded, so a wrong one cannot ask for absurd memory.
    decoder.trace.ops.reserve(Math.min(ref.opCount, maxReservedOps));
  }
  let carry = new Uint8Array(0);
  let sawEnd = false;
  let offset = 0;
  try {
    const stream = createReadStream(ref.path, {
      highWaterMark: 1 << 20,
      ...(signal !== undefined ? { signal } : {}),
    });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const bytes = carry.length === 0 ? chunk : concat(carry, chunk);
      const whole = wholeBatchesLength(bytes);
      if (whole > 0) {
        if (sawEnd) {
          throw new CodecError('data follows the end batch', 0);
        }
        sawEnd = decoder.apply(bytes.subarray(0, whole)).end !== undefined || sawEnd;
        offset += whole;
      }
      // Copied: a Buffer from the stream may share its memory with the next chunks.
      carry = bytes.slice(whole);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ApiError(404, 'not-found', 'the trace was deleted while it was being read');
    }
    throw unreadable(error, offset);
  }
  if (carry.length > 0) {
    throw unreadable(
      new CodecError(
        `the file ends inside a batch (${carry.length} bytes after the last whole one)`,
        0,
      ),
      offset,
    );
  }
  if (!sawEnd && !ref.partial) {
    throw unreadable(new CodecError('no end batch: the file is truncated', 0), offset);
  }
  // Not trimmed: the trace lives as long as one task, and trimming would copy every column.
  return decoder.trace;
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

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function unreadable(error: unknown, fileOffset: number): unknown {
  if (error instanceof CodecError) {
    return new ApiError(
      500,
      'unreadable-trace',
      `the stored trace cannot be read: ${error.message} (in the batches from byte ${fileOffset})`,
    );
  }
  return error;
}
