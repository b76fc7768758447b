import path from 'node:path';
import process from 'node:process';
import { runCommand } from './profile-run.ts';
import { median } from './report.ts';
import type { Report } from './report.ts';

// What a tracer adds to one CUDA call, free of a training loop's noise: per_call
// (scripts/profile-examples/per_call.cu) times each kind of call plain, under the injection
// collector (shipped defaults, then with one part of the collection left off at a time, through
// STREAMSCOPE_PROFILE_OFF and the other settings) and under `nsys profile --trace=cuda,nvtx`.
// The arms run interleaved in rounds (the order rotates each round); a figure is the median
// over rounds of an arm's µs per call minus plain's.

/** One way of running per_call. */
interface PerCallArm {
  readonly name: string;
  readonly tracer: 'plain' | 'ours' | 'nsys';
  readonly env?: Readonly<Record<string, string>>;
}

const gpuKinds = 'kernel,copy,memset,sync,event,nvtx,info';

/** Plain, our defaults, nsys, then our collection taken apart. */
export const perCallArms: readonly PerCallArm[] = [
  { name: 'plain', tracer: 'plain' },
  { name: 'ours', tracer: 'ours' },
  { name: 'nsys', tracer: 'nsys' },
  // API calls from our own callback into per-thread rings (inject-api-calls.h), not CUPTI's API
  // activity records.
  { name: 'api-callback', tracer: 'ours', env: { STREAMSCOPE_PROFILE_API_CALLBACK: '1' } },
  // CUPTI loaded and subscribed, our flush thread running, no kind enabled.
  { name: 'off-all', tracer: 'ours', env: { STREAMSCOPE_PROFILE_OFF: 'all' } },
  // Only API records (runtime + driver): what the API callbacks cost.
  { name: 'api-only', tracer: 'ours', env: { STREAMSCOPE_PROFILE_OFF: gpuKinds } },
  { name: 'runtime-only', tracer: 'ours', env: { STREAMSCOPE_PROFILE_OFF: `${gpuKinds},driver` } },
  // Only GPU records (kernels, copies, memsets, syncs, events): what the activity kinds cost.
  { name: 'gpu-only', tracer: 'ours', env: { STREAMSCOPE_PROFILE_OFF: 'runtime,driver,nvtx' } },
  { name: 'no-driver-api', tracer: 'ours', env: { STREAMSCOPE_PROFILE_DRIVER_API: '0' } },
  // CUDA event records with device timestamps (opt-in: they hung the event case; run D).
  { name: 'cuda-events', tracer: 'ours', env: { STREAMSCOPE_PROFILE_EVENTS: '1' } },
  // Synchronization records left off (stream waits, event and stream synchronizes).
  { name: 'no-sync', tracer: 'ours', env: { STREAMSCOPE_PROFILE_OFF: 'sync' } },
  { name: 'flush-1s', tracer: 'ours', env: { STREAMSCOPE_PROFILE_FLUSH_MS: '1000' } },
  { name: 'buffer-1m', tracer: 'ours', env: { STREAMSCOPE_PROFILE_BUFFER_KB: '1024' } },
];

/** The cases per_call prints (µs per call issued; graph: wall µs per kernel node). */
export const perCallCases = ['launch', 'copy', 'memset', 'event', 'nvtx', 'query', 'graph'];

interface PerCallOptions {
  /** build-device.mjs's folder (per_call, libstreamscope_inject.so). */
  readonly toolsDir: string;
  readonly nsys: string;
  readonly work: string;
  readonly rounds: number;
  /** Arm names to run besides plain (all when empty). */
  readonly only: readonly string[];
  readonly callsPerRep: number;
  readonly repetitions: number;
  /** The cases to run (all of perCallCases when empty). */
  readonly cases: readonly string[];
  /** A run past this many ms is killed (its cases then show '?'). */
  readonly armTimeoutMs: number;
  readonly log: (line: string) => void;
}

/** `per_call CASE issue_us=X wall_us=Y` lines -> CASE -> µs per call (issue, or wall for graph). */
export function parsePerCall(stdout: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of stdout.matchAll(/^per_call (\w+)(?: issue_us=([0-9.]+))? wall_us=([0-9.]+)$/gm)) {
    out.set(m[1]!, Number(m[2] ?? m[3]));
  }
  return out;
}

function armArgs(arm: PerCallArm, options: PerCallOptions): [string, string[], NodeJS.ProcessEnv] {
  const perCall = path.join(options.toolsDir, 'per_call');
  const args = [String(options.callsPerRep), String(options.repetitions)];
  if (options.cases.length > 0) {
    args.push(options.cases.join(','));
  }
  if (arm.tracer === 'nsys') {
    const out = path.join(options.work, 'per-call-nsys');
    return [
      options.nsys,
      [
        'profile',
        '--trace=cuda,nvtx',
        '--sample=none',
        '--cpuctxsw=none',
        '--force-overwrite',
        'true',
        '-o',
        out,
        perCall,
        ...args,
      ],
      process.env,
    ];
  }
  if (arm.tracer === 'plain') {
    return [perCall, args, process.env];
  }
  const collector = path.join(options.toolsDir, 'libstreamscope_inject.so');
  return [
    perCall,
    args,
    {
      ...process.env,
      CUDA_INJECTION64_PATH: collector,
      NVTX_INJECTION64_PATH: collector,
      STREAMSCOPE_PROFILE_OUT: path.join(options.work, 'per-call.sstrace'),
      ...arm.env,
    },
  ];
}

/** Runs the arms in rounds and reports µs added per call, ours and nsys. */
export async function perCallFigures(options: PerCallOptions, report: Report): Promise<void> {
  const cases = options.cases.length > 0 ? options.cases : perCallCases;
  const arms = perCallArms.filter(
    (a) => a.name === 'plain' || options.only.length === 0 || options.only.includes(a.name),
  );
  const measured = new Map<string, Map<string, number[]>>(
    arms.map((a) => [a.name, new Map(cases.map((c) => [c, []]))]),
  );
  for (let round = 0; round < options.rounds; round++) {
    const order = arms.map((_, i) => arms[(i + round) % arms.length]!);
    for (const arm of order) {
      const [command, args, env] = armArgs(arm, options);
      const ran = await runCommand(command, args, env, options.work, options.armTimeoutMs, true);
      const perCase = parsePerCall(ran.stdout);
      const said = ran.stderr
        .split('\n')
        .filter((l) => l.startsWith('streamscope profile'))
        .join(' | ');
      const shown = cases.map((c) => `${c} ${perCase.get(c)?.toFixed(3) ?? '?'}`).join(', ');
      options.log(
        `per-call round ${round + 1} ${arm.name}: exit ${ran.code}; µs/call ${shown}${said === '' ? '' : `; ${said}`}`,
      );
      for (const c of cases) {
        measured
          .get(arm.name)!
          .get(c)!
          .push(perCase.get(c) ?? Number.NaN);
      }
    }
  }
  const plain = measured.get('plain')!;
  for (const c of cases) {
    report(`profile.per_call.${c}.plain_us`, median(plain.get(c)!), 'us');
  }
  for (const arm of arms) {
    if (arm.name === 'plain') {
      continue;
    }
    const prefix =
      arm.name === 'ours'
        ? 'profile.per_call'
        : arm.name === 'nsys'
          ? 'profile.per_call.nsys'
          : `profile.per_call.setting.${arm.name}`;
    for (const c of cases) {
      report(
        `${prefix}.${c}.added_us`,
        median(measured.get(arm.name)!.get(c)!) - median(plain.get(c)!),
        'us',
      );
    }
  }
}
