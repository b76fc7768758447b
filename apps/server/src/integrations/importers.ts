import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ImportError, ImportLimitError } from '@streamscope/importers';
import { isNsysReportFile, withNsysExport } from '@streamscope/importers/node';
import type { ServerEnv } from '../env.ts';
import { nsysLookupOf, readNsysEnv } from '../env.ts';
import { ApiError } from '../http/api-error.ts';
import { importLimitReached } from '../imports/import-failures.ts';
import type { ForeignImporter } from '../imports/import-service.ts';
import type { ImportedTrace } from '../imports/imported-trace.ts';
import { inflateSqliteUpload, isSqlite, oneSqliteAtATime } from '../imports/inflate-sqlite.ts';
import { runImportInWorker } from '../workers/server-workers.ts';

/** How the server finds and runs nsys for an uploaded .nsys-rep report. */
export interface NsysSettings {
  /** `serve --nsys PATH`: used as given. */
  readonly optionPath?: string;
  /** Longest one `nsys export` may run (`serve --nsys-timeout-s`; default 30 minutes). */
  readonly timeoutMs?: number;
  /** NSYS and PATH; read from the environment at each report when not given. */
  readonly env?: Pick<ServerEnv, 'nsysPath' | 'searchPath'>;
  /** Install places searched last (the standard ones unless a test names its own). */
  readonly installPatterns?: readonly string[];
}

/**
 * nsys JSON/SQLite exports and Chrome/kineto traces (gzip'd or not) through @streamscope/importers,
 * read from the received file in chunks. A gzip'd SQLite export is first inflated to a file
 * beside the upload (removed whatever happens), so it is held in memory once, at its size, while
 * sql.js reads it. An Nsight Systems report is exported to SQLite by nsys, in a child process
 * under the time limit and the upload's cancel, into a private folder beside the upload that is
 * always removed, and that export is imported. The parse runs in a worker thread
 * (workers/tasks/import-task.ts), which maps import errors to 413/422. Importers drop
 * environments and command lines, and the server stores only the resulting trace, never the
 * upload.
 */
export function foreignImporter(nsys: NsysSettings = {}): ForeignImporter {
  return async (filePath, options) => {
    const inflatedPath = `${filePath}.inflated`;
    try {
      if (await isNsysReportFile(filePath)) {
        return await importReport(filePath, options, nsys);
      }
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
          outBase: options.outBase,
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
      // The inflation and nsys steps run here, on the calling thread: their limits and damage
      // are said as the worker's are.
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
}

/** The importer `serve` uses unless told where nsys is: NSYS, PATH, the install places. */
export const importForeign: ForeignImporter = foreignImporter();

/** A report exported by nsys, then its SQLite export read page by page in a worker. */
async function importReport(
  filePath: string,
  options: Parameters<ForeignImporter>[1],
  nsys: NsysSettings,
): Promise<ImportedTrace> {
  const env = nsys.env ?? readNsysEnv();
  return withNsysExport(
    filePath,
    {
      fileName: options.fileName,
      // Beside the upload: on the data volume, which startup clears of a crash's leftovers.
      tempRoot: path.dirname(filePath),
      signal: options.signal,
      optionHint: 'serve --nsys PATH',
      timeoutHint: 'serve --nsys-timeout-s N',
      ...(nsys.optionPath === undefined ? {} : { optionPath: nsys.optionPath }),
      ...nsysLookupOf(env),
      ...(nsys.installPatterns === undefined ? {} : { installPatterns: nsys.installPatterns }),
      ...(nsys.timeoutMs === undefined ? {} : { timeoutMs: nsys.timeoutMs }),
      onExporting: () => options.onExporting?.(),
    },
    async (sqlitePath, sqliteBytes) => {
      options.onExported?.(sqliteBytes);
      // The stored form and a big trace's pyramid go where the caller asked (beside the upload),
      // not into the export's folder, which is removed next.
      return oneSqliteAtATime(options.signal, () =>
        runImportInWorker(sqlitePath, {
          fileName: options.fileName,
          maxBytes: options.maxBytes,
          outBase: options.outBase,
          ...(options.maxOps === undefined ? {} : { maxOps: options.maxOps }),
          signal: options.signal,
          onProgress: options.onProgress,
          onStage: (table) => options.onStage?.(table),
        }),
      );
    },
  );
}
