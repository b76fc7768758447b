import { openAsBlob } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { ImportResult } from '@streamscope/importers';
import { ImportError, ImportLimitError, importTrace } from '@streamscope/importers';
import { ApiError } from '../http/api-error.ts';
import type { ForeignImporter } from '../imports/import-service.ts';
import { uploadLimitHint } from '../imports/import-failures.ts';
import { inflateSqliteUpload, isSqlite, oneSqliteAtATime } from '../imports/inflate-sqlite.ts';

/**
 * nsys JSON/SQLite exports and Chrome/kineto traces (gzip'd or not) through @streamscope/importers,
 * read from the received file in chunks. A gzip'd SQLite export is first inflated to a file
 * beside the upload (removed whatever happens), so it is held in memory once, at its size, while
 * sql.js reads it. Importers drop environments and command lines, and the server stores only the
 * resulting trace, never the upload.
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
    const read = async (): Promise<ImportResult> =>
      // A Blob of the file: the importer knows its size and reads a SQLite export into one array.
      importTrace(await openAsBlob(readPath), {
        fileName: options.fileName,
        maxBytes: options.maxBytes,
        signal: options.signal,
        // Progress is in bytes of the upload: an inflated export was counted as it was inflated.
        onProgress: (bytesRead) => {
          if (!inflated) {
            options.onProgress(bytesRead);
          }
        },
        onStage: (table) => options.onStage?.(table),
      });
    const { trace, warnings } =
      inflated || (await isSqlite(readPath))
        ? await oneSqliteAtATime(options.signal, read)
        : await read();
    return { trace, warnings };
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
  } finally {
    await rm(inflatedPath, { force: true });
  }
};
