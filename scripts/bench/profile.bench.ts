import { spawn } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { deviceFigures, deviceMissing } from './profile-device.ts';
import { perCallCases, perCallFigures } from './profile-per-call.ts';
import type { Report } from './report.ts';

// `streamscope profile` figures.
//  - Everywhere: how fast the server takes in a profiled program's records
//    (apps/server/scripts/profile-ingest.ts: 200 frames of 2,500 launches each, 1M ops, sent
//    over the collector socket as the collector sends them, timed to the last frame's ack):
//    profile.ingest_ops_per_s and profile.ingest_mb_per_s.
//  - On the GPU machine: µs each CUDA call gains under our collector and under nsys
//    (profile-per-call.ts), and overhead of the PyTorch example (launch-bound as shipped, and
//    --gpu-bound) against plain and against nsys, with delivery latency (profile-device.ts). It needs build-device.mjs's folder in
//    STREAMSCOPE_PROFILE_DEVICE_DIR, PyTorch and Nsight Systems; elsewhere it says what is missing.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ingestScript = path.join(root, 'apps', 'server', 'scripts', 'profile-ingest.ts');

interface Ingest {
  readonly ops: number;
  readonly bytes: number;
  readonly ms: number;
}

function ingest(): Promise<Ingest> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ingestScript], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) {
        reject(new Error(`profile-ingest exited with ${code}: ${stderr}`));
        return;
      }
      resolve(JSON.parse(stdout) as Ingest);
    });
  });
}

export async function run(report: Report): Promise<void> {
  const figures = await ingest();
  report('profile.ingest_ops_per_s', Math.round(figures.ops / (figures.ms / 1000)), 'ops/s');
  report('profile.ingest_mb_per_s', figures.bytes / 1e6 / (figures.ms / 1000), 'MB/s');

  const options = {
    toolsDir: path.resolve(process.env['STREAMSCOPE_PROFILE_DEVICE_DIR'] ?? '.gpuprof'),
    python: process.env['STREAMSCOPE_BENCH_PYTHON'] ?? '/opt/torch/.venv/bin/python3',
    nsys: process.env['NSYS'] ?? '',
  };
  const missing = deviceMissing(options);
  if (missing !== undefined) {
    process.stderr.write(
      `profile.bench: profile.overhead_ratio, profile.nsys_overhead_ratio and profile.delivery_latency_* need the GPU machine: ${missing}\n`,
    );
    return;
  }
  const log = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  await perCallFigures(
    {
      toolsDir: options.toolsDir,
      nsys: options.nsys,
      work: await mkdtemp(path.join(tmpdir(), 'streamscope-per-call-')),
      rounds: 3,
      only: ['ours', 'nsys'],
      callsPerRep: 25_600,
      repetitions: 5,
      // Every case, the event one too: it hung only with CUDA event records (device
      // timestamps), now opt-in (STREAMSCOPE_PROFILE_EVENTS=1; profile-h100.txt, run D).
      cases: perCallCases,
      armTimeoutMs: 120_000,
      log,
    },
    report,
  );
  for (const gpuBound of [false, true]) {
    await deviceFigures(
      {
        ...options,
        loopS: 20,
        budgetS: 600,
        maxRounds: 3,
        withNsys: true,
        gpuBound,
        only: ['default'],
        log,
      },
      report,
    );
  }
}
