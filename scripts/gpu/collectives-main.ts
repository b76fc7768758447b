// Runs ON THE GPU MACHINE (bundled by build-device-runner.mjs): workloads with collectives
// through the CUDA backend, each a warm-up then ROUNDS measured runs.
//   node collectives-main.mjs OUT_DIR ROUNDS SPEC.json...
// Writes OUT_DIR/collectives.json (per spec: makespans, comm-compute overlap, NCCL kernel names
// and GPU ops per device) and the last run of each spec as OUT_DIR/<spec name>.sstrace.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { analyzeTrace, summarizeRun } from '@streamscope/analysis';
import { CudaBackend } from '@streamscope/executor';
import { saveTrace } from '@streamscope/trace';
import type { Trace } from '@streamscope/trace';
import { validateWorkload } from '@streamscope/workload';

const here = path.dirname(new URL(import.meta.url).pathname);
const backend = new CudaBackend({
  addonPath: process.env['STREAMSCOPE_ADDON'] ?? path.join(here, '..', 'streamscope_native.node'),
  childScript: path.join(here, 'child-host.mjs'),
});

interface SpecResult {
  readonly name: string;
  readonly makespansMs: number[];
  readonly commComputeOverlap: (number | null)[];
  readonly ncclKernels: string[];
  readonly gpuOpsByDevice: Record<string, number>;
  readonly failures: string[];
}

function gpuOpsByDevice(trace: Trace): Record<string, number> {
  const ops = trace.ops.columns();
  const out: Record<string, number> = {};
  for (let i = 0; i < ops.count; i++) {
    const track = trace.tracks[ops.track[i]!];
    if (track?.kind === 'gpu-stream') {
      out[String(track.deviceId)] = (out[String(track.deviceId)] ?? 0) + 1;
    }
  }
  return out;
}

function ncclKernelNames(trace: Trace): string[] {
  const ops = trace.ops.columns();
  const names = new Set<string>();
  for (let i = 0; i < ops.count; i++) {
    const name = trace.strings.get(ops.nameId[i]!);
    if (name.includes('nccl')) {
      names.add(name);
    }
  }
  return [...names].sort();
}

async function runSpec(file: string, rounds: number, outDir: string): Promise<SpecResult> {
  const name = path.basename(file, '.json');
  const validated = validateWorkload(JSON.parse(readFileSync(file, 'utf8')));
  if (!validated.ok) {
    throw new Error(
      `${file}: ${validated.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
  }
  const result: SpecResult = {
    name,
    makespansMs: [],
    commComputeOverlap: [],
    ncclKernels: [],
    gpuOpsByDevice: {},
    failures: [],
  };
  for (let round = 0; round <= rounds; round++) {
    const run = backend.startPlan(validated.plan, { timeLimitMs: 120_000 });
    const end = await run.done;
    if (end.status !== 'finished') {
      result.failures.push(`${end.status}${end.status === 'failed' ? `: ${end.reason}` : ''}`);
      continue;
    }
    if (round === 0) {
      continue;
    } // the warm-up
    result.makespansMs.push(summarizeRun(run.trace).makespanNs / 1e6);
    result.commComputeOverlap.push(analyzeTrace(run.trace).metrics.overlap.commCompute);
    if (round === rounds) {
      result.ncclKernels.push(...ncclKernelNames(run.trace));
      Object.assign(result.gpuOpsByDevice, gpuOpsByDevice(run.trace));
      writeFileSync(path.join(outDir, `${name}.sstrace`), saveTrace(run.trace));
    }
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return result;
}

const [outDir, roundsText, ...specs] = process.argv.slice(2);
if (outDir === undefined || roundsText === undefined || specs.length === 0) {
  process.stderr.write('usage: collectives-main.mjs OUT_DIR ROUNDS SPEC.json...\n');
  process.exit(2);
}
const results: SpecResult[] = [];
for (const spec of specs) {
  try {
    results.push(await runSpec(spec, Number(roundsText), outDir));
  } catch (e) {
    process.stdout.write(`${spec}: ${(e as Error).message}\n`);
  }
}
writeFileSync(path.join(outDir, 'collectives.json'), JSON.stringify(results, null, 2) + '\n');
