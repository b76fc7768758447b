import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { runCommand } from './profile-run.ts';
import { median } from './report.ts';
import type { Ran } from './profile-run.ts';
import type { Report } from './report.ts';

// The device half of `pnpm bench profile`: the PyTorch example (scripts/profile-examples/
// torch_streams.py) plain, under `streamscope profile` with each collector setting and under
// `nsys profile --trace=cuda,nvtx`, interleaved in rounds (one run of each arm per round, so
// that the GPU's clock drift over minutes falls on every arm alike); a figure is the median of
// an arm's loop times over the median of plain's. Each `streamscope profile` run is followed by
// the live latency client.
// Its tools come from build-device.mjs (one folder: cli.mjs, serve-on-device.mjs,
// profile-latency.mjs, libstreamscope_inject.so, torch_streams.py).

/** A collector setting: its name and the environment that selects it. */
interface CollectorSetting {
  readonly name: string;
  readonly env: Readonly<Record<string, string>>;
}

/** The shipped defaults first, then one change at a time, then the changes kept together. */
const collectorSettings: readonly CollectorSetting[] = [
  { name: 'default', env: {} },
  { name: 'inline-handover', env: { STREAMSCOPE_PROFILE_INLINE: '1' } },
  { name: 'flush-100ms', env: { STREAMSCOPE_PROFILE_FLUSH_MS: '100' } },
  { name: 'buffer-256k', env: { STREAMSCOPE_PROFILE_BUFFER_KB: '256' } },
  { name: 'cuda-events', env: { STREAMSCOPE_PROFILE_EVENTS: '1' } },
  { name: 'no-driver-api', env: { STREAMSCOPE_PROFILE_DRIVER_API: '0' } },
  { name: 'no-pending-queries', env: { STREAMSCOPE_PROFILE_SYNC_QUERIES: '0' } },
  { name: 'pinned-device-buffers', env: { STREAMSCOPE_PROFILE_PINNED: '1' } },
  {
    name: 'queries-off+pinned',
    env: { STREAMSCOPE_PROFILE_SYNC_QUERIES: '0', STREAMSCOPE_PROFILE_PINNED: '1' },
  },
  {
    name: 'all-off',
    env: {
      STREAMSCOPE_PROFILE_SYNC_QUERIES: '0',
      STREAMSCOPE_PROFILE_PINNED: '1',
      STREAMSCOPE_PROFILE_EVENTS: '0',
      STREAMSCOPE_PROFILE_DRIVER_API: '0',
      STREAMSCOPE_PROFILE_FLUSH_MS: '100',
    },
  },
];

interface DeviceOptions {
  /** build-device.mjs's folder. */
  readonly toolsDir: string;
  readonly python: string;
  readonly nsys: string;
  /** Target loop wall time of one run, plain. */
  readonly loopS: number;
  /** No new round starts past this many seconds. */
  readonly budgetS: number;
  readonly maxRounds: number;
  /** false: plain and our settings only (a device allowance too short for nsys's runs too). */
  readonly withNsys: boolean;
  /** torch_streams.py --gpu-bound: a model sized like a real training step (figures profile.gpu_bound.*). */
  readonly gpuBound: boolean;
  /** Settings to run (names from collectorSettings); all when empty. */
  readonly only: readonly string[];
  /** Each line of progress (the device log). */
  readonly log: (line: string) => void;
}

/** The example's "loop N ms" in ms, or NaN. */
function loopMsOf(stdout: string): number {
  const m = /loop ([0-9.]+) ms/.exec(stdout);
  return m === null ? Number.NaN : Number(m[1]);
}

/** What is missing for the device figures, or undefined when they can be measured here. */
export function deviceMissing(options: Pick<DeviceOptions, 'toolsDir' | 'python' | 'nsys'>) {
  for (const file of [
    'cli.mjs',
    'serve-on-device.mjs',
    'profile-latency.mjs',
    'torch_streams.py',
    'per_call',
  ]) {
    if (!existsSync(path.join(options.toolsDir, file))) {
      return `no ${file} in ${options.toolsDir} (node scripts/profile-examples/build-device.mjs DIR, then STREAMSCOPE_PROFILE_DEVICE_DIR=DIR)`;
    }
  }
  if (!existsSync(options.python)) {
    return `no Python with PyTorch at ${options.python} (STREAMSCOPE_BENCH_PYTHON)`;
  }
  if (options.nsys === '' || !existsSync(options.nsys)) {
    return 'no Nsight Systems CLI (NSYS)';
  }
  return undefined;
}

async function startServer(toolsDir: string, cwd: string) {
  const child = spawn(process.execPath, [path.join(toolsDir, 'serve-on-device.mjs'), '0'], {
    cwd,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const m = /^listening (\d+)/.exec(line);
    if (m !== null) {
      return { child, base: `http://127.0.0.1:${m[1]}` };
    }
  }
  throw new Error('serve-on-device.mjs ended before it listened');
}

interface Latency {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Runs the example once under `arm`; the loop time and, for our arms, delivery latency. */
async function runArm(
  arm: string,
  exampleArgs: readonly string[],
  context: {
    readonly options: DeviceOptions;
    readonly settings: readonly CollectorSetting[];
    readonly work: string;
    readonly serverBase: string;
  },
): Promise<{ readonly ran: Ran; readonly latency?: Latency }> {
  const { options, work } = context;
  if (arm === 'plain') {
    return { ran: await runCommand(options.python, exampleArgs, process.env, work) };
  }
  if (arm === 'nsys') {
    const nsysArgs = ['profile', '--trace=cuda,nvtx', '--sample=none', '--cpuctxsw=none'];
    const out = ['--force-overwrite', 'true', '-o', path.join(work, 'bench-nsys')];
    const ran = await runCommand(
      options.nsys,
      [...nsysArgs, ...out, options.python, ...exampleArgs],
      process.env,
      work,
    );
    return { ran };
  }
  const setting = context.settings.find((s) => `profile:${s.name}` === arm)!;
  const follower = runCommand(
    process.execPath,
    [path.join(options.toolsDir, 'profile-latency.mjs'), context.serverBase],
    process.env,
    work,
    options.loopS * 1000 * 4 + 60_000,
  );
  const ran = await runCommand(
    process.execPath,
    [
      path.join(options.toolsDir, 'cli.mjs'),
      'profile',
      '--server',
      context.serverBase,
      '--',
      options.python,
      ...exampleArgs,
    ],
    {
      ...process.env,
      STREAMSCOPE_COLLECTOR: path.join(options.toolsDir, 'libstreamscope_inject.so'),
      ...setting.env,
    },
    work,
  );
  const followed = await follower;
  try {
    return { ran, latency: JSON.parse(followed.stdout) as Latency };
  } catch {
    options.log(`${arm}: the latency client printed no figures: ${followed.stdout.slice(0, 200)}`);
    return { ran };
  }
}

/**
 * Measures, prints each run as it ends, and reports the figures. One warm-up run (which also
 * sizes the loop to loopS), then rounds of plain, each setting and nsys, one run each, in an
 * order that rotates every round so that no arm always runs first or after nsys. Figures: the
 * median loop time of each arm, and its ratio to plain's median.
 */
export async function deviceFigures(options: DeviceOptions, report: Report): Promise<void> {
  const { toolsDir, python, log } = options;
  const work = await mkdtemp(path.join(tmpdir(), 'streamscope-profile-bench-'));
  const example = path.join(toolsDir, 'torch_streams.py');
  const variantArgs = options.gpuBound ? ['--gpu-bound'] : [];
  const t0 = performance.now();
  const elapsedS = (): number => (performance.now() - t0) / 1000;
  const probeSteps = options.gpuBound ? 20 : 100;
  const probe = loopMsOf(
    (
      await runCommand(
        python,
        [example, ...variantArgs, '--steps', String(probeSteps)],
        process.env,
        work,
      )
    ).stdout,
  );
  const steps = Math.max(probeSteps, Math.round((probeSteps * options.loopS * 1000) / probe));
  log(
    `warm-up${options.gpuBound ? ' (--gpu-bound)' : ''}: ${probeSteps} steps in ${probe} ms; runs use ${steps} steps (~${options.loopS} s of loop)`,
  );
  const server = await startServer(toolsDir, work);
  const settings = collectorSettings.filter(
    (s) => options.only.length === 0 || options.only.includes(s.name),
  );
  const arms = [
    'plain',
    ...settings.map((s) => `profile:${s.name}`),
    ...(options.withNsys ? ['nsys'] : []),
  ];
  const loops = new Map<string, number[]>(arms.map((a) => [a, []]));
  const latencies = new Map<string, Latency[]>();
  const exampleArgs = [example, ...variantArgs, '--steps', String(steps)];
  const context = { options, settings, work, serverBase: server.base };
  try {
    for (let round = 0; round < options.maxRounds; round++) {
      if (round > 0 && elapsedS() > options.budgetS) {
        break;
      }
      const order = arms.map((_, i) => arms[(i + round) % arms.length]!);
      const thisRound = new Map<string, number>();
      for (const arm of order) {
        const { ran, latency } = await runArm(arm, exampleArgs, context);
        if (latency !== undefined) {
          latencies.set(arm, [...(latencies.get(arm) ?? []), latency]);
        }
        const loopMs = loopMsOf(ran.stdout);
        loops.get(arm)!.push(loopMs);
        thisRound.set(arm, loopMs);
        const shown =
          latency === undefined
            ? ''
            : `; delivery p50 ${latency.p50Ms.toFixed(1)} ms p99 ${latency.p99Ms.toFixed(1)} ms max ${latency.maxMs.toFixed(1)} ms`;
        log(
          `[${elapsedS().toFixed(0)} s] round ${round + 1} ${arm}: exit ${ran.code}, loop ${loopMs} ms${shown}`,
        );
      }
      const plainMs = thisRound.get('plain')!;
      const ratios = arms
        .filter((a) => a !== 'plain')
        .map((a) => `${a} ${(thisRound.get(a)! / plainMs).toFixed(3)}`);
      log(`round ${round + 1} ratios to its plain run: ${ratios.join(', ')}`);
      // Figures after every round (the last block counts), so a run cut short still leaves
      // the rounds it finished.
      log(`figures after round ${round + 1}`);
      reportFigures({ settings, loops, latencies, gpuBound: options.gpuBound }, report);
    }
  } finally {
    server.child.kill();
  }
}

interface Measured {
  readonly settings: readonly CollectorSetting[];
  readonly loops: ReadonlyMap<string, number[]>;
  readonly latencies: ReadonlyMap<string, Latency[]>;
  readonly gpuBound: boolean;
}

/** The figures from the runs so far: medians of loop times over plain's, latency medians. */
function reportFigures({ settings, loops, latencies, gpuBound }: Measured, report: Report): void {
  const base = gpuBound ? 'profile.gpu_bound' : 'profile';
  const plainMs = median(loops.get('plain')!);
  report(`${base}.plain_loop_ms`, plainMs, 'ms');
  report(`${base}.rounds`, loops.get('plain')!.length, 'rounds');
  const nsys = loops.get('nsys');
  if (nsys !== undefined) {
    report(`${base}.nsys_loop_ms`, median(nsys), 'ms');
    report(`${base}.nsys_overhead_ratio`, median(nsys) / plainMs, 'x');
  }
  for (const s of settings) {
    const arm = `profile:${s.name}`;
    const prefix = s.name === 'default' ? base : `${base}.setting.${s.name}`;
    report(`${prefix}.loop_ms`, median(loops.get(arm)!), 'ms');
    report(`${prefix}.overhead_ratio`, median(loops.get(arm)!) / plainMs, 'x');
    const l = latencies.get(arm) ?? [];
    report(`${prefix}.delivery_latency_p50_ms`, median(l.map((x) => x.p50Ms)), 'ms');
    report(`${prefix}.delivery_latency_p99_ms`, median(l.map((x) => x.p99Ms)), 'ms');
    report(`${prefix}.delivery_latency_max_ms`, Math.max(...l.map((x) => x.maxMs)), 'ms');
  }
}
