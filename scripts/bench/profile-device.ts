import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import type { Report } from './report.ts';

// The device half of `pnpm bench profile`: the PyTorch example (scripts/profile-examples/
// torch_streams.py) plain, under `nsys profile --trace=cuda,nvtx` and under `streamscope profile`
// with each collector setting, in rounds. Each round runs plain first and again half-way, the
// other arms in an order that rotates each round; an arm's ratio in a round is its loop wall
// time over the median of that round's plain runs (the GPU's clocks drift over minutes, so a
// ratio is only taken between runs close in time), and a figure is the median over rounds.
// Each `streamscope profile` run is followed by the live latency client.
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
  { name: 'no-cuda-events', env: { STREAMSCOPE_PROFILE_EVENTS: '0' } },
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
  /** Settings to run (names from collectorSettings); all when empty. */
  readonly only: readonly string[];
  /** Each line of progress (the device log). */
  readonly log: (line: string) => void;
}

interface Ran {
  readonly stdout: string;
  readonly code: number | null;
}

function runCommand(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs = 300_000,
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    // A run that hangs (a latency client whose run never started) ends here, not the bench.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, code });
    });
  });
}

/** The example's "loop N ms" in ms, or NaN. */
function loopMsOf(stdout: string): number {
  const m = /loop ([0-9.]+) ms/.exec(stdout);
  return m === null ? Number.NaN : Number(m[1]);
}

function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) {
    return Number.NaN;
  }
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** What is missing for the device figures, or undefined when they can be measured here. */
export function deviceMissing(options: Pick<DeviceOptions, 'toolsDir' | 'python' | 'nsys'>) {
  for (const file of [
    'cli.mjs',
    'serve-on-device.mjs',
    'profile-latency.mjs',
    'torch_streams.py',
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

/** Measures, prints each run as it ends, and reports the figures. */
export async function deviceFigures(options: DeviceOptions, report: Report): Promise<void> {
  const { toolsDir, python, log } = options;
  const work = await mkdtemp(path.join(tmpdir(), 'streamscope-profile-bench-'));
  const example = path.join(toolsDir, 'torch_streams.py');
  const t0 = performance.now();
  const elapsedS = (): number => (performance.now() - t0) / 1000;
  // Warm-up and sizing: 100 steps plain.
  const probe = loopMsOf(
    (await runCommand(python, [example, '--steps', '100'], process.env, work)).stdout,
  );
  const steps = Math.max(100, Math.round((100 * options.loopS * 1000) / probe));
  log(`warm-up: 100 steps in ${probe} ms; runs use ${steps} steps (~${options.loopS} s of loop)`);
  const server = await startServer(toolsDir, work);
  const settings = collectorSettings.filter(
    (s) => options.only.length === 0 || options.only.includes(s.name),
  );
  const others = ['nsys', ...settings.map((s) => `profile:${s.name}`)];
  const loops = new Map<string, number[]>([
    ['plain', []],
    ...others.map((a): [string, number[]] => [a, []]),
  ]);
  const ratios = new Map<string, number[]>(others.map((a) => [a, []]));
  const latencies = new Map<string, Latency[]>();
  const exampleArgs = [example, '--steps', String(steps)];
  try {
    for (let round = 0; round < options.maxRounds; round++) {
      if (round > 0 && elapsedS() > options.budgetS) {
        break;
      }
      const rotated = others.map((_, i) => others[(i + round) % others.length]!);
      const half = Math.ceil(rotated.length / 2);
      const order = ['plain', ...rotated.slice(0, half), 'plain', ...rotated.slice(half)];
      const thisRound = new Map<string, number[]>();
      for (const arm of order) {
        let ran: Ran;
        let latency: Latency | undefined;
        if (arm === 'plain') {
          ran = await runCommand(python, exampleArgs, process.env, work);
        } else if (arm === 'nsys') {
          ran = await runCommand(
            options.nsys,
            [
              'profile',
              '--trace=cuda,nvtx',
              '--sample=none',
              '--cpuctxsw=none',
              '--force-overwrite',
              'true',
              '-o',
              path.join(work, 'bench-nsys'),
              python,
              ...exampleArgs,
            ],
            process.env,
            work,
          );
        } else {
          const setting = settings.find((s) => `profile:${s.name}` === arm)!;
          const follower = runCommand(
            process.execPath,
            [path.join(toolsDir, 'profile-latency.mjs'), server.base],
            process.env,
            work,
            options.loopS * 1000 * 4 + 60_000,
          );
          ran = await runCommand(
            process.execPath,
            [
              path.join(toolsDir, 'cli.mjs'),
              'profile',
              '--server',
              server.base,
              '--',
              python,
              ...exampleArgs,
            ],
            {
              ...process.env,
              STREAMSCOPE_COLLECTOR: path.join(toolsDir, 'libstreamscope_inject.so'),
              ...setting.env,
            },
            work,
          );
          const followed = await follower;
          try {
            latency = JSON.parse(followed.stdout) as Latency;
            latencies.set(arm, [...(latencies.get(arm) ?? []), latency]);
          } catch {
            log(`${arm}: the latency client printed no figures: ${followed.stdout.slice(0, 200)}`);
          }
        }
        const loopMs = loopMsOf(ran.stdout);
        loops.get(arm)!.push(loopMs);
        thisRound.set(arm, [...(thisRound.get(arm) ?? []), loopMs]);
        const shown =
          latency === undefined
            ? ''
            : `; delivery p50 ${latency.p50Ms.toFixed(1)} ms p99 ${latency.p99Ms.toFixed(1)} ms max ${latency.maxMs.toFixed(1)} ms`;
        log(
          `[${elapsedS().toFixed(0)} s] round ${round + 1} ${arm}: exit ${ran.code}, loop ${loopMs} ms${shown}`,
        );
      }
      // Figures after every round (the last block counts), so a run cut short still leaves
      // the rounds it finished.
      const plainNow = median(thisRound.get('plain') ?? []);
      for (const arm of others) {
        ratios.get(arm)!.push(median(thisRound.get(arm) ?? []) / plainNow);
      }
      log(`figures after round ${round + 1}`);
      reportFigures({ settings, loops, ratios, latencies }, report);
    }
  } finally {
    server.child.kill();
  }
}

interface Measured {
  readonly settings: readonly CollectorSetting[];
  readonly loops: ReadonlyMap<string, number[]>;
  readonly ratios: ReadonlyMap<string, number[]>;
  readonly latencies: ReadonlyMap<string, Latency[]>;
}

/** The figures from the runs so far: loop medians over plain's, delivery latency medians. */
function reportFigures({ settings, loops, ratios, latencies }: Measured, report: Report): void {
  report('profile.plain_loop_ms', median(loops.get('plain')!), 'ms');
  report('profile.rounds', ratios.get('nsys')!.length, 'rounds');
  report('profile.nsys_overhead_ratio', median(ratios.get('nsys')!), 'x');
  for (const s of settings) {
    const arm = `profile:${s.name}`;
    const prefix = s.name === 'default' ? 'profile' : `profile.setting.${s.name}`;
    report(`${prefix}.overhead_ratio`, median(ratios.get(arm)!), 'x');
    const l = latencies.get(arm) ?? [];
    report(`${prefix}.delivery_latency_p50_ms`, median(l.map((x) => x.p50Ms)), 'ms');
    report(`${prefix}.delivery_latency_p99_ms`, median(l.map((x) => x.p99Ms)), 'ms');
    report(`${prefix}.delivery_latency_max_ms`, Math.max(...l.map((x) => x.maxMs)), 'ms');
  }
}
