import { stat } from 'node:fs/promises';
import { ImportError, ImportLimitError, importTrace } from '@streamscope/importers';
import { ApiError } from '../../http/api-error.ts';
import { openRandomAccess, streamOf } from '@streamscope/importers/node';
import { isSqlite } from '../../imports/inflate-sqlite.ts';
import { importLimitReached } from '../../imports/import-failures.ts';
import { importedTraceOf } from '../../imports/imported-trace.ts';
import { pyramidAtImport } from '../tile-pyramid.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/**
 * nsys JSON/SQLite exports and Chrome/kineto traces (gzip'd or not) through
 * @streamscope/importers, read from the received file in chunks; environments and command lines
 * are dropped by the importers. Progress and SQLite stages go back as messages.
 */
export async function importTask(
  filePath: string,
  fileName: string,
  maxBytes: number,
  maxOps: number | undefined,
  outBase: string,
  ctx: TaskContext,
): Promise<TaskResult> {
  try {
    // A SQLite export is read from disk page by page (never held whole); anything else streams
    // from the file in 1 MiB chunks, its size given.
    const file = (await isSqlite(filePath)) ? openRandomAccess(filePath) : undefined;
    const { trace, warnings } = await importTrace(file ?? streamOf(filePath), {
      fileName,
      totalBytes: (await stat(filePath)).size,
      maxBytes,
      ...(maxOps === undefined ? {} : { maxOps }),
      signal: ctx.signal,
      onProgress: (bytesRead) => ctx.send({ type: 'progress', taskId: ctx.taskId, bytesRead }),
      onStage: (stage) => ctx.send({ type: 'stage', taskId: ctx.taskId, stage }),
    }).finally(() => file?.close());
    // The trace as stored (an ImportedTrace), written here at `outBase` piece by piece; a big
    // one's pyramid made here too, from the trace in memory, beside it.
    ctx.notePeakMemory();
    const result = {
      ...importedTraceOf(trace, warnings, outBase, ctx.signal),
      ...pyramidAtImport(trace, outBase, ctx.signal),
    };
    return { result };
  } catch (error) {
    if (error instanceof ImportLimitError) {
      throw importLimitReached(error);
    }
    if (error instanceof ImportError) {
      const place =
        error.path ??
        error.field ??
        error.table ??
        (error.line !== undefined ? `line ${error.line}` : undefined);
      throw new ApiError(422, 'import-failed', error.message, place);
    }
    throw error;
  }
}
