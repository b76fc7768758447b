import type { TraceQuery } from '../../storage/trace-query.ts';
import { answerQuery } from '../../storage/trace-query.ts';
import { loadTraceFile } from '../load-trace-file.ts';
import type { TraceFileRef } from '../protocol.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/** Loads a stored trace and answers one question about it (GET …/area, …/flows, …/search/marks). */
export async function queryTask(
  ref: TraceFileRef,
  query: TraceQuery,
  ctx: TaskContext,
): Promise<TaskResult> {
  const trace = await loadTraceFile(ref, ctx.signal);
  return { result: answerQuery(trace, query) };
}
