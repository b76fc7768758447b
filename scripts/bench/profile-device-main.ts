// The device half of `pnpm bench profile` as one file for the GPU machine (build-device.mjs
// bundles it as profile-bench.mjs beside the tools it runs):
//   node DIR/profile-bench.mjs loop [SETTING...]       the PyTorch example, plain/ours/nsys
//   node DIR/profile-bench.mjs gpu-bound [SETTING...]  the same with torch_streams.py --gpu-bound
//   node DIR/profile-bench.mjs per-call [ARM...]       per_call.cu: µs each call gains
// (env: NSYS, STREAMSCOPE_BENCH_PYTHON, STREAMSCOPE_BENCH_LOOP_S, STREAMSCOPE_BENCH_BUDGET_S,
// STREAMSCOPE_BENCH_ROUNDS, STREAMSCOPE_BENCH_CALLS, STREAMSCOPE_BENCH_CASES,
// STREAMSCOPE_BENCH_ARM_TIMEOUT_S (default 120), and
// STREAMSCOPE_BENCH_NSYS=0 to leave nsys's runs out). Prints each run as it ends on stderr and
// the figures as `name: value unit` on stdout.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { deviceFigures, deviceMissing } from './profile-device.ts';
import { perCallFigures } from './profile-per-call.ts';
import { printFigure } from './report.ts';

const toolsDir = path.dirname(fileURLToPath(import.meta.url));
const [mode = 'loop', ...names] = process.argv.slice(2);
const options = {
  toolsDir,
  python: process.env['STREAMSCOPE_BENCH_PYTHON'] ?? '/opt/torch/.venv/bin/python3',
  nsys: process.env['NSYS'] ?? '',
  loopS: Number(process.env['STREAMSCOPE_BENCH_LOOP_S'] ?? '20'),
  budgetS: Number(process.env['STREAMSCOPE_BENCH_BUDGET_S'] ?? '600'),
  maxRounds: Number(process.env['STREAMSCOPE_BENCH_ROUNDS'] ?? '3'),
  gpuBound: mode === 'gpu-bound',
  withNsys: process.env['STREAMSCOPE_BENCH_NSYS'] !== '0',
  only: names,
  log: (line: string) => process.stderr.write(`${line}\n`),
};
if (!['loop', 'gpu-bound', 'per-call'].includes(mode)) {
  process.stderr.write(`profile-bench: mode '${mode}' is not loop, gpu-bound or per-call\n`);
  process.exit(2);
}
const missing = deviceMissing(options);
if (missing !== undefined) {
  process.stderr.write(`profile-bench: ${missing}\n`);
  process.exit(1);
}
if (mode === 'per-call') {
  await perCallFigures(
    {
      toolsDir,
      nsys: options.nsys,
      work: await mkdtemp(path.join(tmpdir(), 'streamscope-per-call-')),
      rounds: options.maxRounds,
      only: names,
      callsPerRep: Number(process.env['STREAMSCOPE_BENCH_CALLS'] ?? '25600'),
      repetitions: 5,
      cases: (process.env['STREAMSCOPE_BENCH_CASES'] ?? '').split(',').filter((c) => c !== ''),
      armTimeoutMs: Number(process.env['STREAMSCOPE_BENCH_ARM_TIMEOUT_S'] ?? '120') * 1000,
      log: options.log,
    },
    printFigure,
  );
} else {
  await deviceFigures(options, printFigure);
}
