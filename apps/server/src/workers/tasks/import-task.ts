import { openAsBlob } from 'node:fs';
import { ImportError, ImportLimitError, importTrace } from '@streamscope/importers';
import { saveTrace } from '@streamscope/trace';
import { ApiError } from '../../http/api-error.ts';
import { openRandomAccess } from '../../imports/file-random-access.ts';
import { isSqlite } from '../../imports/inflate-sqlite.ts';
import { uploadLimitHint } from '../../imports/import-failures.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/** What an import in a worker hands back: the trace as codec bytes (transferred), and its summary. */
export interface ImportedTrace {
  readonly traceBytes: Uint8Array;
  readonly warnings: readonly string[];
  /** What a trace entry lists, so that storing needs no decoding. */
  readonly opCount: number;
  readonly spanNs: number;
  readonly title: string;
  readonly sourceFormat: string;
}

/**
 * nsys JSON/SQLite exports and Chrome/kineto traces (gzip'd or not) through
 * @streamscope/importers, read from the received file in chunks; environments and command lines
 * are dropped by the importers. Progress and SQLite stages go back as messages.
 */
export async function importTask(
  filePath: string,
  fileName: string,
  maxBytes: number,
  ctx: TaskContext,
): Promise<TaskResult> {
  try {
    // A SQLite export is read from disk page by page (never held whole); anything else streams
    // from a Blob of the file.
    const file = (await isSqlite(filePath)) ? openRandomAccess(filePath) : undefined;
    const { trace, warnings } = await importTrace(file ?? (await openAsBlob(filePath)), {
      fileName,
      maxBytes,
      signal: ctx.signal,
      onProgress: (bytesRead) => ctx.send({ type: 'progress', taskId: ctx.taskId, bytesRead }),
      onStage: (stage) => ctx.send({ type: 'stage', taskId: ctx.taskId, stage }),
    }).finally(() => file?.close());
    const traceBytes = saveTrace(trace);
    const result: ImportedTrace = {
      traceBytes,
      warnings,
      opCount: trace.ops.count,
      spanNs: trace.spanNs(),
      title: trace.meta.title,
      sourceFormat: trace.meta.sourceFormat,
    };
    return { result, transfer: [traceBytes.buffer as ArrayBuffer] };
  } catch (error) {
    if (error instanceof ImportLimitError) {
      throw new ApiError(413, 'too-large', `${error.message}; ${uploadLimitHint}`);
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
