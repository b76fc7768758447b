import { chromeTraceChunks } from '@streamscope/importers';
import { loadTraceFile } from '../load-trace-file.ts';
import type { TraceFileRef } from '../protocol.ts';
import type { TaskContext, TaskResult } from './task-context.ts';
import { throwIfAborted } from './task-context.ts';

/**
 * The Chrome export of a stored trace, sent as UTF-8 chunks (transferred) as fast as the event
 * loop passes them on: at most a few chunks are in flight, whatever the trace's size.
 */
export async function exportTask(ref: TraceFileRef, ctx: TaskContext): Promise<TaskResult> {
  const trace = await loadTraceFile(ref, ctx.signal);
  ctx.send({ type: 'started', taskId: ctx.taskId });
  const encoder = new TextEncoder();
  let bytes = 0;
  for (const chunk of chromeTraceChunks(trace)) {
    await ctx.credit();
    throwIfAborted(ctx.signal);
    // Its own ArrayBuffer (never a pooled Buffer's), so it can be transferred.
    const encoded = encoder.encode(chunk);
    bytes += encoded.length;
    ctx.send({ type: 'chunk', taskId: ctx.taskId, bytes: encoded }, [encoded.buffer]);
  }
  return { result: { bytes } };
}
