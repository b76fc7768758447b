import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ImportOptions, ImportResult } from '@streamscope/importers';
import { importTrace } from '@streamscope/importers';
import { openRandomAccess, streamOf } from '@streamscope/importers/node';
import { inflateSqliteUpload, isSqlite } from '../imports/inflate-sqlite.ts';

/**
 * Imports a file from disk. A SQLite export is read page by page from the file; a gzip'd one is
 * first inflated to a temporary file under `tempRoot` (removed whatever happens), never into
 * memory. Everything else streams in chunks (streamOf), its size given.
 */
export async function importFile(
  file: string,
  options: ImportOptions,
  tempRoot = tmpdir(),
): Promise<ImportResult> {
  if (await isSqlite(file)) {
    return importSqliteFile(file, options);
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
