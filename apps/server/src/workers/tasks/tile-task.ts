import { loadTraceFile } from '../load-trace-file.ts';
import type { TraceFileRef } from '../protocol.ts';
import { writeTilePyramid } from '../tile-pyramid.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/** Builds the level-of-detail file of a stored trace at `outPath` (renamed into place when whole). */
export async function tileTask(
  ref: TraceFileRef,
  outPath: string,
  ctx: TaskContext,
): Promise<TaskResult> {
  const trace = await loadTraceFile(ref, ctx.signal);
  writeTilePyramid(trace, outPath, ctx.signal);
  return { result: null };
}
