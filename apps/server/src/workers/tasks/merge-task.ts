import { randomBytes } from 'node:crypto';
import path from 'node:path';
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
  // A big merge's pyramid goes beside the inputs, under a name no trace has (startup removes it
  // if the route never moves it beside the merged trace).
  const beside = path.join(
    path.dirname(inputs[0]!.trace.path),
    `merge-${randomBytes(6).toString('hex')}`,
  );
  const result = {
    ...importedTraceOf(merged.trace, merged.warnings),
    ...pyramidAtImport(merged.trace, beside, ctx.signal),
  };
  return { result, transfer: [result.traceBytes.buffer as ArrayBuffer] };
}
