import { createReadStream } from 'node:fs';
import type { TraceMeta } from '@streamscope/trace';
import {
  BatchKind,
  CodecError,
  TraceDecoder,
  batchHeaderBytes,
  batchMagic,
} from '@streamscope/trace';
import { ApiError } from '../http/api-error.ts';
import type { TraceFileRef } from './protocol.ts';

/**
 * The meta of a stored trace file (its last meta batch: a run may restate its meta as it goes),
 * found by walking the batch headers without decoding anything else, and the file's framing
 * checked on the way: every batch whole, and an end batch unless the file is partial. Reads
 * the file once at disk speed, so a caller can start answering before decoding it.
 */
export async function readTraceMeta(ref: TraceFileRef, signal?: AbortSignal): Promise<TraceMeta> {
  const header = new Uint8Array(batchHeaderBytes);
  let headerFill = 0;
  let payloadLeft = 0;
  let metaParts: Uint8Array[] | undefined;
  let lastMeta: Uint8Array | undefined;
  let sawEnd = false;
  let offset = 0;
  try {
    const stream = createReadStream(ref.path, {
      highWaterMark: 1 << 20,
      ...(signal !== undefined ? { signal } : {}),
    });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let at = 0;
      while (at < chunk.length) {
        if (payloadLeft > 0) {
          const n = Math.min(payloadLeft, chunk.length - at);
          metaParts?.push(chunk.slice(at, at + n));
          payloadLeft -= n;
          at += n;
        } else {
          const n = Math.min(batchHeaderBytes - headerFill, chunk.length - at);
          header.set(chunk.subarray(at, at + n), headerFill);
          headerFill += n;
          at += n;
          if (headerFill < batchHeaderBytes) {
            continue;
          }
          const view = new DataView(header.buffer);
          if (view.getUint32(0, true) !== batchMagic) {
            throw new CodecError(`no batch starts at byte ${offset + at - batchHeaderBytes}`, 0);
          }
          if (sawEnd) {
            throw new CodecError('data follows the end batch', 0);
          }
          const kind = view.getUint8(5);
          sawEnd = kind === BatchKind.End;
          payloadLeft = view.getUint32(12, true);
          headerFill = 0;
          metaParts = kind === BatchKind.Meta ? [header.slice()] : undefined;
        }
        if (payloadLeft === 0 && metaParts !== undefined) {
          lastMeta = Buffer.concat(metaParts);
          metaParts = undefined;
        }
      }
      offset += chunk.length;
    }
    if (headerFill > 0 || payloadLeft > 0) {
      throw new CodecError('the file ends inside a batch', 0);
    }
    if (!sawEnd && !ref.partial) {
      throw new CodecError('no end batch: the file is truncated', 0);
    }
    const decoder = new TraceDecoder();
    if (lastMeta !== undefined) {
      decoder.apply(lastMeta);
    }
    return decoder.trace.meta;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ApiError(404, 'not-found', 'the trace was deleted while it was being read');
    }
    if (error instanceof CodecError) {
      throw new ApiError(
        500,
        'unreadable-trace',
        `the stored trace cannot be read: ${error.message} (${offset} bytes in)`,
      );
    }
    throw error;
  }
}
