// Runs on the GPU machine (bundled by build-device-runner.mjs; see README.md there):
//   node device-main.mjs all OUT_DIR        probe, calibration, every preset, bench figures, faults
//   node device-main.mjs preset NAME[:P=V,...] FILE [TIMING]   one preset (TIMING=none under nsys)
//   node device-main.mjs export-json TRACE JSON      per-stream GPU ops of a trace, for the comparison
//   node device-main.mjs two-gpu OUT_DIR             peer copies between two devices, one trace
//   node device-main.mjs calibrate OUT_DIR           every calibration benchmark, traces kept
// STREAMSCOPE_ADDON names the addon (default: streamscope_native.node in the bundle's parent).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import type { CudaBackendOptions, CudaRunOptions } from '@streamscope/executor';
import { CudaBackend, runCalibration } from '@streamscope/executor';
import { FlowKind, OpKind, loadTrace, opKindName, saveTrace } from '@streamscope/trace';
import { buildPreset, presets, validateWorkload } from '@streamscope/workload';
import { collectionOverhead, copyFractions, deliveryLatency } from './executor-figures.ts';
import { twoGpuWorkload, twoThreadsWorkload } from './extra-workloads.ts';

const here = path.dirname(new URL(import.meta.url).pathname);
const options: CudaBackendOptions = {
  addonPath: process.env['STREAMSCOPE_ADDON'] ?? path.join(here, '..', 'streamscope_native.node'),
  childScript: path.join(here, 'child-host.mjs'),
};
const log = (line: string): void => {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
};

async function step(name: string, body: () => Promise<void>): Promise<void> {
  const t0 = Date.now();
  try {
    await body();
    log(`${name}: ok (${Date.now() - t0} ms)`);
  } catch (error) {
    log(`${name}: FAILED ${(error as Error).stack ?? String(error)}`);
  }
}

/** How many entries of a kind column hold `kind`. */
function countOf(kinds: ArrayLike<number>, kind: number): number {
  let n = 0;
  for (let i = 0; i < kinds.length; i++) {
    if (kinds[i] === kind) {
      n++;
    }
  }
  return n;
}

async function runPreset(
  backend: CudaBackend,
  name: string,
  file: string,
  runOptions: CudaRunOptions,
  workload: unknown = buildPreset(name),
): Promise<void> {
  const validated = validateWorkload(workload);
  if (!validated.ok) {
    throw new Error(
      `${name}: ${validated.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
  }
  const run = backend.startPlan(
    validated.plan,
    { timeLimitMs: 120_000 },
    { ...runOptions, preset: name },
  );
  const end = await run.done;
  const s = run.nativeStatus;
  log(
    `preset ${name}: ${end.status}${end.status === 'failed' ? ` (${end.reason})` : ''}; ${run.trace.ops.count} ops, ` +
      `timing ${run.trace.meta.timingMethod}, makespan ${((s?.makespanNs ?? 0) / 1e6).toFixed(3)} ms, ` +
      `dropped ${s?.dropped ?? '?'}, unmatched ${s?.unmatched ?? '?'}, cupti dropped ${s?.cuptiDropped ?? '?'}, ` +
      `stream waits ${countOf(run.trace.ops.columns().kind, OpKind.StreamWait)} (unresolved ${s?.unresolvedWaits ?? '?'}), ` +
      `record→wait flows ${countOf(run.trace.flows.columns().kind, FlowKind.EventRecordToWait)}` +
      `${(run.trace.meta.warnings ?? []).length > 0 ? `, warnings: ${run.trace.meta.warnings?.join(' | ')}` : ''}`,
  );
  if (end.status === 'finished') {
    writeFileSync(file, saveTrace(run.trace));
  }
}

async function faults(backend: CudaBackend): Promise<void> {
  const pipeline = validateWorkload(buildPreset('pipeline'));
  if (!pipeline.ok) {
    throw new Error('pipeline does not validate');
  }
  const hang = validateWorkload({
    name: 'hang',
    streams: [{ name: 's' }],
    threads: [
      { name: 'main', ops: [{ op: 'kernel', name: 'forever', duration: '8s', stream: 's' }] },
    ],
  });
  if (!hang.ok) {
    throw new Error(
      `hang workload: ${hang.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
  }
  const t0 = Date.now();
  const hung = backend.startPlan(hang.plan, { timeLimitMs: 3000 });
  const hungEnd = await hung.done;
  log(
    `fault hang: ${JSON.stringify(hungEnd)} after ${Date.now() - t0} ms, ${hung.trace.ops.count} ops kept`,
  );

  const faulty = backend.startPlan(
    pipeline.plan,
    { timeLimitMs: 30_000 },
    { injectFaultAfterOps: 6 },
  );
  const faultEnd = await faulty.done;
  log(`fault kernel: ${JSON.stringify(faultEnd)}, ${faulty.trace.ops.count} ops kept`);

  const b = new (await import('@streamscope/executor')).PlanBuilder('long');
  const s = b.stream('s');
  for (let i = 0; i < 200; i++) {
    b.kernel(s, 'k', 10_000_000);
  }
  const killed = backend.startPlan(b.build(), { timeLimitMs: 30_000 });
  killed.onUpdate(() => {
    if (killed.trace.ops.columns().kind.includes(OpKind.Kernel)) {
      process.kill(killed.executorPid, 'SIGKILL');
    }
  });
  const killedEnd = await killed.done;
  log(`fault killed child: ${JSON.stringify(killedEnd)}, ${killed.trace.ops.count} ops kept`);

  const after = backend.startPlan(pipeline.plan, { timeLimitMs: 30_000 });
  log(
    `after the faults the parent still runs: ${JSON.stringify(await after.done)}, ${after.trace.ops.count} ops`,
  );
}

async function all(outDir: string): Promise<void> {
  mkdirSync(path.join(outDir, 'runs'), { recursive: true });
  const backend = new CudaBackend(options);
  const results: string[] = [];
  const report = (name: string, value: number, unit: string): void => {
    const line = `${name}: ${Number.isInteger(value) ? value : value.toPrecision(4)} ${unit}`;
    results.push(line);
    log(line);
  };
  await step('probe', async () => {
    const probe = await backend.probe();
    writeFileSync(path.join(outDir, 'probe.json'), JSON.stringify(probe, null, 2) + '\n');
    log(JSON.stringify(probe));
  });
  await step('calibrate', () => calibrateBenchmarks(outDir));
  for (const preset of presets) {
    await step(`preset ${preset.name}`, () =>
      runPreset(backend, preset.name, path.join(outDir, 'runs', `${preset.name}.sstrace`), {}),
    );
  }
  await step('two threads', () =>
    runPreset(
      backend,
      'two-threads',
      path.join(outDir, 'runs', 'two-threads.sstrace'),
      {},
      twoThreadsWorkload(),
    ),
  );
  await step('events fallback', () =>
    runPreset(backend, 'pipeline', path.join(outDir, 'runs', 'pipeline-events.sstrace'), {
      timing: 'events',
    }),
  );
  await step('bench overhead', () => collectionOverhead(backend, report));
  await step('bench copies', () => copyFractions(backend, options, report));
  await step('bench latency', () => deliveryLatency(backend, report));
  await step('faults', () => faults(backend));
  writeFileSync(path.join(outDir, 'bench.txt'), results.join('\n') + '\n');
}

async function twoGpu(outDir: string): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const backend = new CudaBackend(options);
  const validated = validateWorkload(twoGpuWorkload());
  if (!validated.ok) {
    throw new Error(validated.errors.map((e) => `${e.path}: ${e.message}`).join('; '));
  }
  const run = backend.startPlan(validated.plan, { timeLimitMs: 60_000 });
  const end = await run.done;
  const ops = run.trace.ops.columns();
  const perDevice = new Map<number, number>();
  for (let i = 0; i < ops.count; i++) {
    const track = run.trace.tracks[ops.track[i]!];
    if (track?.kind === 'gpu-stream') {
      perDevice.set(track.deviceId, (perDevice.get(track.deviceId) ?? 0) + 1);
    }
  }
  log(
    `two-gpu: ${JSON.stringify(end)}; GPU ops per device ${JSON.stringify([...perDevice])}; devices ${run.trace.devices.map((d) => d.name).join(', ')}`,
  );
  writeFileSync(path.join(outDir, 'two-gpu-peer.sstrace'), saveTrace(run.trace));
}

/** Where collection costs time on a larger pipeline, and what CUPTI said about event records. */
async function diagnose(): Promise<void> {
  const backend = new CudaBackend(options);
  const events = validateWorkload(buildPreset('events-vs-device-sync'));
  if (events.ok) {
    const run = backend.startPlan(events.plan, { timeLimitMs: 60_000 });
    await run.done;
    log(`events-vs-device-sync status: ${JSON.stringify(run.nativeStatus)}`);
  }
  const large = validateWorkload(buildPreset('pipeline', { size: '256MiB', chunks: '16' }));
  if (!large.ok) {
    return;
  }
  for (const timing of ['auto', 'none', 'events', 'auto', 'none', 'events'] as const) {
    const makespans: number[] = [];
    for (let i = 0; i < 3; i++) {
      const run = backend.startPlan(large.plan, { timeLimitMs: 60_000 }, { timing });
      await run.done;
      makespans.push((run.nativeStatus?.makespanNs ?? 0) / 1e6);
    }
    log(
      `pipeline 256MiB/16 timing ${timing}: makespans ${makespans.map((m) => m.toFixed(3)).join(', ')} ms`,
    );
  }
}

const timedKinds = new Set<number>([
  OpKind.Kernel,
  OpKind.CopyHtoD,
  OpKind.CopyDtoH,
  OpKind.CopyDtoD,
  OpKind.CopyPtoP,
  OpKind.CopyHtoH,
  OpKind.Memset,
]);

/**
 * Which part of collection costs the pipeline its makespan: each part of CUPTI collection left
 * off in turn (STREAMSCOPE_CUPTI_OFF, read by the executor child), runs alternating with
 * collection off, medians of 15.
 */
async function overhead(): Promise<void> {
  const backend = new CudaBackend(options);
  const validated = validateWorkload(buildPreset('pipeline'));
  if (!validated.ok) {
    return;
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const variants = [
    '',
    'kernel',
    'memcpy',
    'events',
    'callbacks',
    'flush',
    'kernel,memcpy,events,callbacks,flush',
  ];
  for (const off of variants) {
    const on: number[] = [];
    const none: number[] = [];
    for (let i = 0; i < 15; i++) {
      for (const timing of ['auto', 'none'] as const) {
        process.env['STREAMSCOPE_CUPTI_OFF'] = timing === 'auto' ? off : '';
        const run = backend.startPlan(validated.plan, { timeLimitMs: 60_000 }, { timing });
        await run.done;
        (timing === 'auto' ? on : none).push((run.nativeStatus?.makespanNs ?? 0) / 1e6);
      }
    }
    process.env['STREAMSCOPE_CUPTI_OFF'] = '';
    log(
      `overhead with ${off === '' ? 'nothing' : off} off: on ${median(on).toFixed(3)} ms, none ${median(none).toFixed(3)} ms, ratio ${(median(on) / median(none)).toFixed(3)}`,
    );
  }
}

/** Per stream track, its GPU ops in start order (the nsys-agreement script reads this). */
function exportJson(traceFile: string, jsonFile: string): void {
  const trace = loadTrace(readFileSync(traceFile));
  const ops = trace.ops.columns();
  const streams: Record<
    string,
    { kind: string; startNs: number; durNs: number; bytes: number; name: string }[]
  > = {};
  for (let i = 0; i < ops.count; i++) {
    const track = trace.tracks[ops.track[i]!];
    // What Nsight Systems records as GPU activity: kernels, copies and memsets (not event
    // records, the stream waits derived around them, or host functions).
    if (track?.kind !== 'gpu-stream' || !timedKinds.has(ops.kind[i]!)) {
      continue;
    }
    (streams[track.name] ??= []).push({
      kind: opKindName(ops.kind[i]!),
      startNs: ops.startNs[i]!,
      durNs: ops.endNs[i]! - ops.startNs[i]!,
      bytes: ops.bytes[i]!,
      name: trace.strings.get(ops.nameId[i]!),
    });
  }
  for (const list of Object.values(streams)) {
    list.sort((a, b) => a.startNs - b.startNs);
  }
  writeFileSync(jsonFile, JSON.stringify({ title: trace.meta.title, streams }) + '\n');
}

/** Every calibration benchmark on the GPU, each trace kept under OUT/cal/; calibration.json. */
async function calibrateBenchmarks(outDir: string): Promise<void> {
  mkdirSync(path.join(outDir, 'cal'), { recursive: true });
  const backend = new CudaBackend(options);
  const { calibration } = await runCalibration(
    backend,
    undefined,
    {
      driver: process.env['DRIVER_VERSION'] ?? 'unknown',
      date: new Date().toISOString().slice(0, 10),
    },
    60_000,
    (name, round, trace) =>
      writeFileSync(path.join(outDir, 'cal', `${name}.${round}.sstrace`), saveTrace(trace)),
    // CALIBRATE_ROUNDS: more rounds for a host whose speed moves from one run to the next.
    Number(process.env['CALIBRATE_ROUNDS'] ?? 3),
  );
  writeFileSync(path.join(outDir, 'calibration.json'), JSON.stringify(calibration, null, 2) + '\n');
  log(JSON.stringify(calibration.measured));
}

const [command, a, b, c] = process.argv.slice(2);
if (command === 'all' && a !== undefined) {
  await all(a);
} else if (command === 'preset' && a !== undefined && b !== undefined) {
  // NAME or NAME:param=value,param=value
  const [name = a, params = ''] = a.split(':');
  const values = Object.fromEntries(
    params
      .split(',')
      .filter((p) => p !== '')
      .map((p) => p.split('=') as [string, string]),
  );
  await runPreset(
    new CudaBackend(options),
    name,
    b,
    { timing: (c ?? 'auto') as CudaRunOptions['timing'] },
    buildPreset(name, values),
  );
} else if (command === 'export-json' && a !== undefined && b !== undefined) {
  exportJson(a, b);
} else if (command === 'diagnose') {
  await diagnose();
} else if (command === 'overhead') {
  await overhead();
} else if (command === 'calibrate' && a !== undefined) {
  await calibrateBenchmarks(a);
} else if (command === 'two-gpu' && a !== undefined) {
  await twoGpu(a);
} else {
  process.stderr.write(
    'usage: device-main.mjs all OUT | preset NAME[:P=V,...] FILE [TIMING] | export-json TRACE JSON | two-gpu OUT\n',
  );
  process.exitCode = 2;
}
