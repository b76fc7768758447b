import { rm } from 'node:fs/promises';
import { ImportError, ImportLimitError } from '@streamscope/importers';
import { ApiError } from '../http/api-error.ts';
import { importLimitReached } from '../imports/import-failures.ts';
import type { ForeignImporter } from '../imports/import-service.ts';
import { inflateSqliteUpload, isSqlite, oneSqliteAtATime } from '../imports/inflate-sqlite.ts';
import { runImportInWorker } from '../workers/server-workers.ts';

/**
 * nsys JSON/SQLite exports and Chrome/kineto traces (gzip'd or not) through @streamscope/importers,
 * read from the received file in chunks. A gzip'd SQLite export is first inflated to a file
 * beside the upload (removed whatever happens), so it is held in memory once, at its size, while
 * sql.js reads it. The parse runs in a worker thread (workers/tasks/import-task.ts), which maps
 * import errors to 413/422. Importers drop environments and command lines, and the server stores
 * only the resulting trace, never the upload.
 */
export const importForeign: ForeignImporter = async (filePath, options) => {
  const inflatedPath = `${filePath}.inflated`;
  try {
    const inflated = await inflateSqliteUpload(filePath, inflatedPath, {
      fileName: options.fileName,
      maxBytes: options.maxBytes,
      signal: options.signal,
      onProgress: options.onProgress,
    });
    const readPath = inflated ? inflatedPath : filePath;
    const read = (): ReturnType<ForeignImporter> =>
      runImportInWorker(readPath, {
        fileName: options.fileName,
        maxBytes: options.maxBytes,
        ...(options.maxOps === undefined ? {} : { maxOps: options.maxOps }),
        signal: options.signal,
        // Progress is in bytes of the upload: an inflated export was counted as it was inflated.
        onProgress: (bytesRead) => {
          if (!inflated) {
            options.onProgress(bytesRead);
          }
        },
        onStage: (table) => options.onStage?.(table),
      });
    return inflated || (await isSqlite(readPath))
      ? await oneSqliteAtATime(options.signal, read)
      : await read();
  } catch (error) {
    // The inflation step runs here, on the calling thread: its limits and damage are said as the
    // worker's are.
    if (error instanceof ImportLimitError) {
      throw importLimitReached(error);
    }
    if (error instanceof ImportError) {
      throw new ApiError(422, 'import-failed', error.message, error.table ?? error.field);
    }
    throw error;
  } finally {
    await rm(inflatedPath, { force: true });
  }
};
