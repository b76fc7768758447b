import { copyFile, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { importTrace } from '@streamscope/importers';
import { saveTrace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { importFile } from './import-file.ts';

const fixtures = path.resolve(import.meta.dirname, '../../../../fixtures');

describe('importFile', () => {
  it('reads a gzip SQLite export through a temporary file it removes, to the trace the bytes give', async () => {
    const temp = await mkdtemp(path.join(tmpdir(), 'import-file-'));
    const file = path.join(fixtures, 'nsys/2025.3.1/graph.sqlite.gz');
    const { trace } = await importFile(file, { fileName: 'graph.sqlite.gz' }, temp);
    expect(await readdir(temp)).toEqual([]);
    const fromBytes = await importTrace(new Uint8Array(await readFile(file)), {
      fileName: 'graph.sqlite.gz',
    });
    expect(Buffer.from(saveTrace(trace)).equals(Buffer.from(saveTrace(fromBytes.trace)))).toBe(
      true,
    );
  });

  it('removes the temporary file when the inflated export is damaged', async () => {
    const temp = await mkdtemp(path.join(tmpdir(), 'import-file-'));
    const corrupt = await readFile(path.join(fixtures, 'broken/corrupt-page.sqlite'));
    await writeFile(path.join(temp, 'corrupt.sqlite.gz'), gzipSync(corrupt));
    const work = await mkdtemp(path.join(tmpdir(), 'import-file-work-'));
    await expect(
      importFile(path.join(temp, 'corrupt.sqlite.gz'), { fileName: 'corrupt.sqlite.gz' }, work),
    ).rejects.toThrow(/page 3, offset 8192/);
    expect(await readdir(work)).toEqual([]);
  });

  it('reads a plain SQLite export from disk in place', async () => {
    const temp = await mkdtemp(path.join(tmpdir(), 'import-file-'));
    const file = path.join(temp, 'train.sqlite');
    await copyFile(path.join(fixtures, 'nsys/2025.3.1/train.sqlite'), file);
    const { trace } = await importFile(file, { fileName: 'train.sqlite' }, temp);
    expect(trace.meta.sourceFormat).toBe('nsys-sqlite');
    expect(await readdir(temp)).toEqual(['train.sqlite']);
  });
});
