// A stand-in for Nsight Systems' nsys CLI, for tests where nsys is not installed (CI): the
// server's and the CLI's unit tests, and the browser test of a report upload (e2e/).
import { chmod, copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/**
 * How the stand-in behaves when asked to export: `export` writes a real nsys SQLite export (a
 * recorded fixture, gunzipped), `fail` prints progress and nsys's complaint about a newer
 * report to stderr and exits 3, `hang` writes its pid to `hang.pid` and never ends, `no-output`
 * exits 0 having written nothing.
 */
export type NsysStandInMode = 'export' | 'fail' | 'hang' | 'no-output';

/** The fixture the stand-in exports: a small recorded nsys 2025.3.1 SQLite export. */
export const standInExport = 'nsys/2025.3.1/graph.sqlite.gz';

/** What the stand-in saw on each call: its arguments and its output folder's mode then. */
export interface StandInCall {
  readonly args: readonly string[];
  readonly outputDir?: string;
  readonly outputDirMode?: number;
  /** Whether the server's token reached nsys's environment (it must not). */
  readonly sawToken?: boolean;
}

const fixturesDir = fileURLToPath(new URL('../../../fixtures/', import.meta.url));

/**
 * Writes an executable `nsys` into `dir` that behaves like `nsys export --type sqlite --output
 * X REPORT` (and answers `--version`): a Node script run by this Node. Calls are logged to
 * `dir/calls.jsonl` (callsOf).
 */
export async function writeNsysStandIn(dir: string, mode: NsysStandInMode): Promise<string> {
  const file = path.join(dir, 'nsys');
  const script = `#!${process.execPath}
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const mode = ${JSON.stringify(mode)};
const dir = ${JSON.stringify(dir)};
const args = process.argv.slice(2);
if (args[0] === '--version') {
  console.log('NVIDIA Nsight Systems version 2025.3.1.90-253135822126v0');
  process.exit(0);
}
const valueOf = (flag) => {
  const i = args.indexOf(flag);
  return i < 0 ? undefined : args[i + 1];
};
const output = valueOf('--output');
const report = args[args.length - 1];
if (args[0] !== 'export' || valueOf('--type') !== 'sqlite' || output === undefined) {
  console.error('stand-in nsys: expected export --type sqlite --output X REPORT');
  process.exit(2);
}
const outputDir = path.dirname(output);
fs.appendFileSync(path.join(dir, 'calls.jsonl'), JSON.stringify({
  args,
  outputDir,
  outputDirMode: fs.statSync(outputDir).mode & 0o777,
  sawToken: 'STREAMSCOPE_TOKEN' in process.env,
}) + '\\n');
if (fs.readFileSync(report).subarray(0, 28).toString('latin1') !== 'NVIDIA Tegra Profiler Report') {
  console.error('Failed to open ' + report + ': not an Nsight Systems report');
  process.exit(1);
}
if (mode === 'export') {
  console.log('Processing [==============================================================100%]');
  fs.writeFileSync(output, zlib.gunzipSync(fs.readFileSync(${JSON.stringify(path.join(fixturesDir, standInExport))})));
  console.log('Exported successfully to');
  console.log(output);
} else if (mode === 'fail') {
  process.stdout.write('Processing [==========                    ]\\r');
  console.error('Processing [==========                                                    16%]');
  console.error('');
  // As nsys does, it names the report by its path (in the private export folder).
  console.error('Report ' + report + ' was written by nsys 2025.5.1.');
  console.error('nsys 2025.3.1 cannot fully export reports written by newer nsys versions.');
  console.error('Please use nsys 2025.5.1 or newer to export this report.');
  process.exit(3);
} else if (mode === 'hang') {
  fs.writeFileSync(path.join(dir, 'hang.pid'), String(process.pid));
  setInterval(() => undefined, 60_000);
} else {
  process.exit(0);
}
`;
  await writeFile(file, script);
  await chmod(file, 0o755);
  return file;
}

/** The stand-in's calls so far, oldest first. */
export async function callsOf(dir: string): Promise<StandInCall[]> {
  const text = await readFile(path.join(dir, 'calls.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as StandInCall);
}

/** A report to import: the committed one (nsys's magic and nothing more), under `name` in `dir`. */
export async function writeTestReport(dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  await copyFile(path.join(fixturesDir, 'broken/report.nsys-rep'), file);
  return file;
}

export { isRunning } from '@streamscope/importers/node';
