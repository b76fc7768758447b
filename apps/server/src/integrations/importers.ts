import { createReadStream } from 'node:fs';
import { ImportError, importTrace } from '@streamscope/importers';
import { ApiError } from '../http/api-error.ts';
import type { ForeignImporter } from '../imports/import-service.ts';

/**
 * nsys JSON/SQLite exports and Chrome/kineto traces (gzip'd or not) through @streamscope/importers,
 * read from the received file in chunks. Importers drop environments and command lines, and the
 * server stores only the resulting trace, never the upload.
 */
export const importForeign: ForeignImporter = async (filePath, options) => {
  try {
    const { trace, warnings } = await importTrace(
      createReadStream(filePath, { signal: options.signal }),
      {
        fileName: options.fileName,
        maxBytes: options.maxBytes,
        signal: options.signal,
        onProgress: (bytesRead) => options.onProgress(bytesRead),
        onStage: (table) => options.onStage?.(table),
      },
    );
    return { trace, warnings };
  } catch (error) {
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
};
