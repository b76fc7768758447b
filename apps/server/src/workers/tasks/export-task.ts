import { chromeBatchChunks, chromeTraceHead } from '@streamscope/importers';
import { readTraceMeta, withTraceBatches } from '../load-trace-file.ts';
import type { TraceFileRef } from '../protocol.ts';
import type { TaskContext, TaskResult } from './task-context.ts';
import { throwIfAborted } from './task-context.ts';

// Bytes per chunk sent to the event loop.
const chunkBytes = 64 * 1024;

/**
 * The Chrome export of a stored trace, sent as UTF-8 chunks (transferred) as fast as the event
 * loop passes them on: at most a few chunks are in flight, whatever the trace's size. The head
 * goes out once the file's framing is checked, before the trace is read, so the first byte
 * does not wait for a large trace. The trace is never decoded whole: its ops, ranges and flows
 * are read from the file a batch at a time (`withTraceBatches`), so memory does not grow with
 * the trace. Each event is encoded into the chunk as it is made, so no string outlives its event.
 */
export async function exportTask(ref: TraceFileRef, ctx: TaskContext): Promise<TaskResult> {
  const head = chromeTraceHead(await readTraceMeta(ref, ctx.signal));
  ctx.send({ type: 'started', taskId: ctx.taskId });
  const encoder = new TextEncoder();
  let chunk = new Uint8Array(chunkBytes);
  let filled = 0;
  let bytes = 0;
  const flush = async (): Promise<void> => {
    await ctx.credit();
    throwIfAborted(ctx.signal);
    // Transferred, not copied; the event loop gives the memory back once it is written out, so
    // a few chunks' memory is all an export of any size uses.
    const full = chunk.subarray(0, filled);
    ctx.send({ type: 'chunk', taskId: ctx.taskId, bytes: full }, [chunk.buffer]);
    bytes += filled;
    chunk = new Uint8Array(ctx.spareBuffer() ?? new ArrayBuffer(chunkBytes));
    filled = 0;
  };
  const write = async (text: string): Promise<void> => {
    let rest = text;
    for (;;) {
      const { read, written } = encoder.encodeInto(rest, chunk.subarray(filled));
      filled += written;
      if (read === rest.length) {
        return;
      }
      rest = rest.slice(read);
      await flush();
    }
  };
  await write(head);
  await flush();
  await withTraceBatches(ref, ctx.signal, async (reader) => {
    // chunkChars 1: the exporter yields each event as soon as it is made.
    for (const text of chromeBatchChunks(reader, 1, false)) {
      await write(text);
    }
  });
  if (filled > 0) {
    await flush();
  }
  return { result: { bytes } };
}
