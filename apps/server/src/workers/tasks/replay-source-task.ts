import { replaySourceBuffers, replaySourceOf } from '@streamscope/executor';
import { loadTraceFile } from '../load-trace-file.ts';
import type { TraceFileRef } from '../protocol.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/**
 * A stored trace made ready to replay: decoded and sorted into replay order here, its columns
 * transferred (not copied) to the event loop, which only walks them as the replay plays.
 */
export async function replaySourceTask(ref: TraceFileRef, ctx: TaskContext): Promise<TaskResult> {
  const source = replaySourceOf(await loadTraceFile(ref, ctx.signal));
  return { result: source, transfer: replaySourceBuffers(source) };
}
