import { readdir } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchModule, Report } from './report.ts';
import { printFigure } from './report.ts';

// `pnpm bench [FILTER]`: runs every *.bench.ts beside this file (or those whose name contains
// FILTER) and prints each figure on its own line as `name: value unit`.
const here = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = (await readdir(here))
  .filter((f) => f.endsWith('.bench.ts') && (filter === undefined || f.includes(filter)))
  .sort();

const report: Report = printFigure;

let failed = 0;
for (const file of files) {
  const mod = (await import(pathToFileURL(path.join(here, file)).href)) as BenchModule;
  try {
    await mod.run(report);
  } catch (error) {
    failed++;
    process.stderr.write(
      `${file}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
}
process.exitCode = failed > 0 ? 1 : 0;
