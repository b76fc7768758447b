import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportChromeTrace, exportTestTrace, importTrace } from '@streamscope/importers';
import { loadTrace, saveTrace } from '@streamscope/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../run-cli-for-test.ts';

let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'export-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function saved(name: string, opCount: number, nameChars: number): Promise<string> {
  const file = path.join(dir, `${name}.sstrace`);
  await writeFile(file, saveTrace(exportTestTrace(opCount, nameChars)));
  return file;
}

describe('streamscope export', () => {
  it('writes to standard output the bytes of the whole-string export, streamed or line by line', async () => {
    const file = await saved('small', 400, 120);
    // As stored: the file keeps whole ns.
    const expected = exportChromeTrace(loadTrace(saveTrace(exportTestTrace(400, 120))));
    const streamed = await runCli(['export', file, '--format', 'chrome'], true);
    expect(streamed.code, streamed.err).toBe(0);
    expect(streamed.out).toBe(expected);
    const lines = await runCli(['export', file, '--format', 'chrome']);
    expect(lines.out).toBe(expected);
  });

  it('reads a stored trace from its file a batch at a time; a truncated one is refused by its name and byte', async () => {
    const bytes = saveTrace(exportTestTrace(40_000, 12));
    const whole = path.join(dir, 'whole.sstrace');
    await writeFile(whole, bytes);
    const r = await runCli(['export', whole, '--format', 'chrome'], true);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(exportChromeTrace(loadTrace(bytes)));
    const cut = path.join(dir, 'cut.sstrace');
    await writeFile(cut, bytes.subarray(0, 200_000));
    const refused = await runCli(['export', cut, '--format', 'chrome', '--out', '/dev/null']);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toMatch(
      new RegExp(
        `^streamscope export: ${cut.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: batch \\d+ \\(ops\\): payload of \\d+ bytes runs past the end of the buffer \\(\\d+ left\\) at byte \\d+: truncated`,
      ),
    );
  }, 60_000);

  it('reads a SQLite export page by page from disk, as import does (the error names the page)', async () => {
    // sql.js on the whole file would only say "database disk image is malformed".
    const fixture = path.resolve(
      import.meta.dirname,
      '../../../../../fixtures/broken/corrupt-page.sqlite',
    );
    const r = await runCli(['export', fixture, '--format', 'chrome', '--out', '/dev/null']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/page 3, offset 8192/);
  });

  it('exports a SQLite export to the same JSON as its imported trace', async () => {
    const fixture = path.resolve(
      import.meta.dirname,
      '../../../../../fixtures/nsys/2025.3.1/train.sqlite',
    );
    const { trace } = await importTrace(new Uint8Array(await readFile(fixture)), {
      fileName: 'train.sqlite',
    });
    const r = await runCli(['export', fixture, '--format', 'chrome'], true);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(exportChromeTrace(trace));
  });

  // About 570 MB of JSON written to /dev/null: seconds on a quiet core, far more on a loaded one.
  it(
    'exports a trace whose JSON outgrows the longest string V8 holds',
    { timeout: 300_000 },
    async () => {
      const file = await saved('huge', 260_000, 4000);
      const r = await runCli(['export', file, '--format', 'chrome', '--out', '/dev/null']);
      expect(r.code, r.err).toBe(0);
      const bytes = Number(/\((\d+) bytes, 260000 ops/.exec(r.err)?.[1]);
      // V8's longest string is 2^29 − 24 characters; the export is longer in bytes and characters.
      expect(bytes).toBeGreaterThan(2 ** 29);
    },
  );
});
