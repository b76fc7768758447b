import { fstatSync, readSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PositionedFile, Trace, TraceMeta } from '@streamscope/trace';
import { OpBatchReader, TraceDecoder } from '@streamscope/trace';
import { forEachBatchRun, indexBatches, withTraceFile } from './batch-file.ts';
import type { TraceFileRef } from './protocol.ts';

// Columns sized up front at most for this many ops (about 1.5 GB); beyond, they grow as they load.
const maxReservedOps = 32 * 1024 * 1024;

/**
 * Decodes a stored trace file as it is read, a run of whole batches at a time, so the file's
 * bytes are never all in memory beside the decoded trace. A partial file (a live run's snapshot)
 * may end without its end batch; any other must have it.
 */
export async function loadTraceFile(ref: TraceFileRef, signal?: AbortSignal): Promise<Trace> {
  return withTraceFile(ref.path, async (fd) => {
    indexBatches(fd, ref.partial, signal);
    const decoder = new TraceDecoder();
    if (ref.opCount !== undefined && ref.opCount > 0) {
      // A hint from the trace's row: bounded, so a wrong one cannot ask for absurd memory.
      decoder.trace.ops.reserve(Math.min(ref.opCount, maxReservedOps));
    }
    await forEachBatchRun(fd, (batches, fileOffset) => decoder.apply(batches, fileOffset), signal);
    // Not trimmed: the trace lives as long as one task, and trimming would copy every column.
    return decoder.trace;
  });
}

/**
 * The meta of a stored trace file, from its last meta batch, with the file's framing checked
 * (every batch whole, an end batch unless partial): a few small reads, whatever the file's size,
 * so a caller can start answering before it decodes the trace.
 */
export async function readTraceMeta(ref: TraceFileRef, signal?: AbortSignal): Promise<TraceMeta> {
  return withTraceFile(ref.path, (fd) => {
    const { lastMeta } = indexBatches(fd, ref.partial, signal);
    const decoder = new TraceDecoder();
    if (lastMeta !== undefined) {
      const bytes = new Uint8Array(lastMeta.bytes);
      readSync(fd, bytes, 0, bytes.length, lastMeta.offset);
      decoder.apply(bytes);
    }
    return Promise.resolve(decoder.trace.meta);
  });
}

/**
 * A stored trace file read a batch of ops at a time (`OpBatchReader`): the file is checked once
 * as `loadTraceFile` checks it, then ops, flows and ranges are read from it as `use` asks, so
 * memory stays that of a few batches whatever the trace's size. Errors name the file (its base
 * name) and the byte.
 */
export async function withTraceBatches<T>(
  ref: TraceFileRef,
  signal: AbortSignal | undefined,
  use: (reader: OpBatchReader) => Promise<T>,
): Promise<T> {
  return withTraceFile(ref.path, async (fd) => {
    const reader = await OpBatchReader.open(descriptorFile(fd, path.basename(ref.path)), {
      partial: ref.partial,
      // A turn of the thread's loop between reads: an abort message gets in.
      between: async () => {
        await nextTurn();
        signal?.throwIfAborted();
      },
    });
    return use(reader);
  });
}

/** An open file read by position (synchronous reads: this is a worker thread). */
export function descriptorFile(fd: number, name: string): PositionedFile {
  return {
    name,
    byteLength: fstatSync(fd).size,
    read: (into, position) => readSync(fd, into, 0, into.length, position),
  };
}
