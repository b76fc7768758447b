import { chmod, copyFile, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { describe, expect, it } from 'vitest';
import { withNsysExport } from './nsys-export.ts';

const report = path.resolve(import.meta.dirname, '../../../../fixtures/broken/report.nsys-rep');

/**
 * An nsys that takes `ms` to export: it logs "start" and "end" to `dir/log`, and writes a
 * small file as the export.
 */
async function slowNsys(dir: string, ms: number): Promise<string> {
  const nsys = path.join(dir, 'nsys');
  const log = JSON.stringify(path.join(dir, 'log'));
  await writeFile(
    nsys,
    `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
const output = args[args.indexOf('--output') + 1];
fs.appendFileSync(${log}, 'start\\n');
setTimeout(() => {
  fs.appendFileSync(${log}, 'end\\n');
  fs.writeFileSync(output, 'SQLite format 3\\0');
}, ${ms});
`,
  );
  await chmod(nsys, 0o755);
  return nsys;
}

async function setUp(ms: number) {
  const dir = await mkdtemp(path.join(tmpdir(), 'nsys-export-'));
  const nsys = await slowNsys(dir, ms);
  const file = path.join(dir, 'step.nsys-rep');
  await copyFile(report, file);
  const tempRoot = path.join(dir, 'temp');
  await writeFile(path.join(dir, 'log'), '');
  await mkdir(tempRoot);
  return { dir, nsys, file, tempRoot };
}

describe.skipIf(process.platform === 'win32')('withNsysExport', () => {
  it('runs one nsys export at a time: several uploads at once never run several nsys', async () => {
    const { dir, nsys, file, tempRoot } = await setUp(300);
    const options = { fileName: 'step.nsys-rep', tempRoot, optionPath: nsys };
    const sizes = await Promise.all(
      [0, 1, 2].map(() => withNsysExport(file, options, (_path, bytes) => Promise.resolve(bytes))),
    );
    expect(sizes).toEqual([16, 16, 16]);
    expect(await readFile(path.join(dir, 'log'), 'utf8')).toBe(
      'start\nend\nstart\nend\nstart\nend\n',
    );
    expect(await readdir(tempRoot)).toEqual([]);
  });

  it('ends a cancelled export that waits for its turn at once, having run no nsys', async () => {
    const { dir, nsys, file, tempRoot } = await setUp(1_000);
    const options = { fileName: 'step.nsys-rep', tempRoot, optionPath: nsys };
    const first = withNsysExport(file, options, () => Promise.resolve('first'));
    // The second asks for its turn once the first runs nsys (two asked at once may take their
    // turns in either order: each first looks for nsys).
    const log = path.join(dir, 'log');
    while (!(await readFile(log, 'utf8')).includes('start')) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const cancel = new AbortController();
    const second = withNsysExport(file, { ...options, signal: cancel.signal }, () =>
      Promise.resolve('second'),
    );
    cancel.abort();
    await expect(second).rejects.toThrow('step.nsys-rep: import cancelled');
    // At once: the first's nsys (a second long) has not ended yet.
    expect(await readFile(log, 'utf8')).toBe('start\n');
    expect(await first).toBe('first');
    expect(await readFile(path.join(dir, 'log'), 'utf8')).toBe('start\nend\n');
    expect(await readdir(tempRoot)).toEqual([]);
  });
});
