// The device half of `pnpm bench profile` as one file for the GPU machine (build-device.mjs
// bundles it as profile-bench.mjs beside the tools it runs):
//   node DIR/profile-bench.mjs [SETTING...]     (env: NSYS, STREAMSCOPE_BENCH_PYTHON,
//   STREAMSCOPE_BENCH_LOOP_S, STREAMSCOPE_BENCH_BUDGET_S, STREAMSCOPE_BENCH_ROUNDS)
// Prints each run as it ends on stderr and the figures as `name: value unit` on stdout.
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { deviceFigures, deviceMissing } from './profile-device.ts';
import { printFigure } from './report.ts';

const toolsDir = path.dirname(fileURLToPath(import.meta.url));
const options = {
  toolsDir,
  python: process.env['STREAMSCOPE_BENCH_PYTHON'] ?? '/opt/torch/.venv/bin/python3',
  nsys: process.env['NSYS'] ?? '',
  loopS: Number(process.env['STREAMSCOPE_BENCH_LOOP_S'] ?? '20'),
  budgetS: Number(process.env['STREAMSCOPE_BENCH_BUDGET_S'] ?? '600'),
  maxRounds: Number(process.env['STREAMSCOPE_BENCH_ROUNDS'] ?? '3'),
  only: process.argv.slice(2),
  log: (line: string) => process.stderr.write(`${line}\n`),
};
const missing = deviceMissing(options);
if (missing !== undefined) {
  process.stderr.write(`profile-bench: ${missing}\n`);
  process.exit(1);
}
await deviceFigures(options, printFigure);
