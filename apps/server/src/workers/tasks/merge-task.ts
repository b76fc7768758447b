import { ImportError, mergeRanks } from '@streamscope/importers';
import { ApiError } from '../../http/api-error.ts';
import { importedTraceOf } from '../../imports/imported-trace.ts';
import { loadTraceFile } from '../load-trace-file.ts';
import { pyramidAtImport } from '../tile-pyramid.ts';
import type { TraceFileRef } from '../protocol.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/**
 * Stored ranks' traces as one (POST /api/imports/merge), encoded as it will be stored. A merge
 * that does not fit together is a 422 `merge-failed` naming the file.
 */
export async function mergeTask(
  inputs: readonly { readonly trace: TraceFileRef; readonly fileName: string }[],
  title: string | undefined,
  outBase: string,
  ctx: TaskContext,
): Promise<TaskResult> {
  const loaded = [];
  for (const input of inputs) {
    loaded.push({ trace: await loadTraceFile(input.trace, ctx.signal), fileName: input.fileName });
  }
  let merged: ReturnType<typeof mergeRanks>;
  try {
    merged = mergeRanks(loaded, title === undefined ? {} : { title });
  } catch (error) {
    if (error instanceof ImportError) {
      throw new ApiError(422, 'merge-failed', error.message, error.path ?? error.file);
    }
    throw error;
  }
  ctx.notePeakMemory();
  // The merged trace and a big one's pyramid at `outBase`, for the route to move into the store.
  const result = {
    ...importedTraceOf(merged.trace, merged.warnings, outBase, ctx.signal),
    ...pyramidAtImport(merged.trace, outBase, ctx.signal),
  };
  return { result };
}
