import { analyzeTrace } from '@streamscope/analysis';
import { loadTraceFile } from '../load-trace-file.ts';
import type { TimeWindowNs, TraceFileRef } from '../protocol.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/** The analysis of a stored trace, as the JSON text the route sends (serialized here too). */
export async function analyzeTask(
  ref: TraceFileRef,
  window: TimeWindowNs | undefined,
  ctx: TaskContext,
): Promise<TaskResult> {
  const trace = await loadTraceFile(ref, ctx.signal);
  return { result: JSON.stringify(analyzeTrace(trace, window)) };
}
