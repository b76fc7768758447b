import { mkdtemp, rm, stat } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type { ImportOptions, ImportResult } from '@streamscope/importers';
import { importTrace } from '@streamscope/importers';
import {
  isNsysReportFile,
  openRandomAccess,
  streamOf,
  withNsysExport,
} from '@streamscope/importers/node';
import { nsysLookupOf, readNsysEnv } from '../env.ts';
import { inflateSqliteUpload, isSqlite } from '../imports/inflate-sqlite.ts';

/** Signals that end `import` while nsys exports: they would end it without a handler too. */
const stopSignals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How a command finds and runs nsys for an Nsight Systems report. */
export interface CliNsys {
  /** `--nsys PATH`; after it NSYS, PATH and the install places are searched. */
  readonly optionPath?: string;
  /** Longest one `nsys export` may run (`--nsys-timeout-s`; default 30 minutes). */
  readonly timeoutMs?: number;
}

/**
 * Imports a file from disk. A SQLite export is read page by page from the file; a gzip'd one is
 * first inflated to a temporary file under `tempRoot` (removed whatever happens), never into
 * memory. An Nsight Systems report is exported to SQLite by nsys into a private folder under
 * `tempRoot` (removed whatever happens) and read from there under the report's name.
 * Everything else streams in chunks (streamOf), its size given.
 */
export async function importFile(
  file: string,
  options: ImportOptions,
  tempRoot = tmpdir(),
  nsys: CliNsys = {},
): Promise<ImportResult> {
  if (await isSqlite(file)) {
    return importSqliteFile(file, options);
  }
  if (await isNsysReportFile(file)) {
    const env = readNsysEnv();
    const signal = options.signal;
    // Ctrl-C, a SIGTERM or a SIGHUP (the terminal closed: nsys, in a session of its own, is
    // not told) ends the command at once, as it would without these handlers, but through
    // process.exit: the export's 'exit' hooks then end nsys and remove its folder.
    const stop = (name: NodeJS.Signals): void => process.exit(128 + constants.signals[name]);
    for (const name of stopSignals) {
      process.on(name, stop);
    }
    return withNsysExport(
      file,
      {
        fileName: options.fileName,
        tempRoot,
        optionHint: '--nsys PATH',
        timeoutHint: '--nsys-timeout-s N',
        ...(nsys.optionPath === undefined ? {} : { optionPath: nsys.optionPath }),
        ...nsysLookupOf(env),
        ...(nsys.timeoutMs === undefined ? {} : { timeoutMs: nsys.timeoutMs }),
        ...(signal === undefined ? {} : { signal }),
      },
      (sqlitePath) => importSqliteFile(sqlitePath, options),
    ).finally(() => {
      for (const name of stopSignals) {
        process.off(name, stop);
      }
    });
  }
  const dir = await mkdtemp(path.join(tempRoot, 'streamscope-import-'));
  try {
    const inflated = path.join(dir, 'inflated.sqlite');
    const isSqliteGz = await inflateSqliteUpload(file, inflated, {
      fileName: options.fileName,
      // The inflated export is read from disk, not held: the ratio rule of gunzip still applies.
      maxBytes: options.maxBytes ?? Number.MAX_SAFE_INTEGER,
      signal: options.signal ?? new AbortController().signal,
      onProgress: () => undefined,
    });
    if (isSqliteGz) {
      return await importSqliteFile(inflated, options);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return importTrace(streamOf(file), { ...options, totalBytes: (await stat(file)).size });
}

async function importSqliteFile(file: string, options: ImportOptions): Promise<ImportResult> {
  const handle = openRandomAccess(file);
  try {
    return await importTrace(handle, options);
  } finally {
    handle.close();
  }
}
