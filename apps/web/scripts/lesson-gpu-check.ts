// Runs ON THE GPU MACHINE (bundled by apps/server/scripts/build-device-server.mjs), against the
// real server started there on the cuda backend: every lesson's "run on the GPU" path as the
// page runs it (lesson-gpu.ts: startRun, the live channel, the stored trace, pairFromRuns),
// beside its simulation on the matching device profile.
//   node --experimental-websocket lesson-gpu-check.mjs http://127.0.0.1:PORT PROFILE [sim] [GPUS] [RUNS]
// (`sim` runs the "measured" side on the server's simulator instead: a dry run without a GPU;
// a lesson needing more than GPUS GPUs, default 1, is skipped and listed as such; one needing N > 1
// is simulated on the PROFILE's N-GPU host, h200x2 for h200, where the simulator has one.)
// Each lesson's pair runs RUNS times (default 3; one run of a side can be an outlier: a 0.668 ms
// run once reversed issue-order-two-engines on an H100). Prints one line per lesson, with the
// medians' errors (each makespan's and the speedup's), and a JSON summary on the last line:
// `reversed` lists lessons whose direction disagrees, `magnitudes` those outside the fidelity
// targets (a makespan more than 10% off, the speedup more than 15%). Exit status 1 when a lesson
// fails to run on the GPU or its median speedup goes against the simulated direction.
import process from 'node:process';
import { findProfile } from '@streamscope/simulator';
import { loadTrace } from '@streamscope/trace';
import { getTraceBytes } from '../src/api/client.ts';
import { lessons } from '../src/lessons/lesson-catalogue.ts';
import { makespanTolerance, medianPair, speedupTolerance } from '../src/lessons/lesson-fidelity.ts';
import type { RunWorkload } from '../src/lessons/lesson-gpu.ts';
import { gpuPairRunner, runOnServer, serverGpuRunner } from '../src/lessons/lesson-gpu.ts';
import { lessonDefaults, runLessonPair } from '../src/lessons/run-lesson-pair.ts';
import type { ExpectedEffect } from '../src/lessons/lesson-types.ts';
import { effectOfSpeedup } from '../src/lessons/lesson-types.ts';

const [baseUrl = '', profile = 'h100', backend = 'cuda', gpus = '1', runsArg = '3'] =
  process.argv.slice(2);
const runs = Math.max(1, Number.parseInt(runsArg, 10) || 1);
if (baseUrl === '' || typeof WebSocket === 'undefined') {
  process.stderr.write(
    'usage: node --experimental-websocket lesson-gpu-check.mjs http://HOST:PORT [PROFILE]\n',
  );
  process.exit(2);
}
// The page's API client speaks relative URLs to the page's own origin.
const base = new URL(baseUrl);
Object.assign(globalThis, { location: { protocol: base.protocol, host: base.host } });
const nodeFetch = globalThis.fetch;
globalThis.fetch = (input: string | URL | Request, init?: RequestInit) =>
  nodeFetch(typeof input === 'string' ? new URL(input, base) : input, init);

interface LessonOutcome {
  lesson: string;
  simSpeedup: number;
  gpuSpeedup?: number;
  simEffect: ExpectedEffect;
  gpuEffect?: ExpectedEffect;
  gpuOps?: [number, number];
  makespanMs?: { sim: [number, number]; gpu: [number, number] };
  /** (simulated − GPU) / GPU, percent: before, after, speedup. */
  errorPct?: [number, number, number];
  findings?: number;
  error?: string;
}

const pct = (v: number): string => `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`;

const outcomes: LessonOutcome[] = [];
const simOnServer: RunWorkload = async (workload) =>
  loadTrace(await getTraceBytes(await runOnServer(workload, 'sim', profile)));
const runGpuPair = gpuPairRunner(backend === 'sim' ? simOnServer : serverGpuRunner(''), 'GPU');
const skipped: string[] = [];
for (const lesson of lessons) {
  if ((lesson.gpus ?? 1) > Number(gpus)) {
    skipped.push(lesson.id);
    process.stdout.write(
      `${lesson.id}: skipped, needs ${lesson.gpus} GPUs (this machine: ${gpus})\n`,
    );
    continue;
  }
  // A multi-GPU lesson on the machine's own host profile: its links were measured there.
  const hostProfile = `${profile}x${lesson.gpus ?? 1}`;
  const simProfile =
    (lesson.gpus ?? 1) > 1 && findProfile(hostProfile) !== undefined ? hostProfile : profile;
  const simulated = runLessonPair(lesson, lessonDefaults(lesson), simProfile);
  const { beforeTrace, afterTrace, ...summary } = simulated;
  const outcome: LessonOutcome = {
    lesson: lesson.id,
    simSpeedup: summary.speedup,
    simEffect: effectOfSpeedup(summary.speedup),
  };
  try {
    const pairs = [];
    for (let r = 0; r < runs; r++) {
      pairs.push(await runGpuPair({ summary, beforeTrace, afterTrace }));
    }
    const measured = pairs[0]!;
    const gpu = medianPair(pairs.map((p) => p.summary));
    outcome.gpuSpeedup = gpu.speedup;
    outcome.gpuEffect = effectOfSpeedup(gpu.speedup);
    outcome.gpuOps = [measured.beforeTrace.ops.count, measured.afterTrace.ops.count];
    outcome.makespanMs = {
      sim: [summary.before.makespanNs / 1e6, summary.after.makespanNs / 1e6],
      gpu: [gpu.beforeNs / 1e6, gpu.afterNs / 1e6],
    };
    const off = (sim: number, measuredValue: number): number => (sim / measuredValue - 1) * 100;
    outcome.errorPct = [
      off(summary.before.makespanNs, gpu.beforeNs),
      off(summary.after.makespanNs, gpu.afterNs),
      off(summary.speedup, gpu.speedup),
    ];
    outcome.findings = measured.summary.findings.length;
  } catch (error) {
    outcome.error = (error as Error).message;
  }
  outcomes.push(outcome);
  process.stdout.write(
    `${lesson.id}: sim ${simProfile} ${outcome.simSpeedup.toFixed(2)}x (${outcome.simEffect})` +
      (outcome.error === undefined
        ? `, GPU ${outcome.gpuSpeedup?.toFixed(2)}x (${outcome.gpuEffect}, median of ${runs}); ` +
          `makespans sim ${outcome.makespanMs?.sim.map((m) => m.toFixed(3)).join(' → ')} ms, ` +
          `GPU ${outcome.makespanMs?.gpu.map((m) => m.toFixed(3)).join(' → ')} ms; ` +
          `error ${outcome.errorPct?.map(pct).join(' / ')} (before / after / speedup); ` +
          `${outcome.gpuOps?.join(' + ')} ops; ${outcome.findings} findings`
        : `, GPU FAILED: ${outcome.error}`) +
      '\n',
  );
}
const failed = outcomes.filter((o) => o.error !== undefined).map((o) => o.lesson);
// "same" on one side and a small move on the other is agreement within tolerance, not a
// reversal; "same" against a move of 20% or more is a disagreement.
const reversed = outcomes
  .filter((o) => {
    if (o.gpuEffect === undefined || o.gpuEffect === o.simEffect) {
      return false;
    }
    const moved = (speedup: number | undefined): boolean =>
      speedup !== undefined && Math.abs(speedup - 1) >= 0.2;
    return o.gpuEffect === 'same'
      ? moved(o.simSpeedup)
      : o.simEffect === 'same'
        ? moved(o.gpuSpeedup)
        : true;
  })
  .map((o) => o.lesson);
// Magnitudes, with the fidelity report's targets: a makespan more than 10% off the GPU's median,
// or the speedup more than 15% off.
const magnitudes = outcomes
  .filter(
    (o) =>
      o.errorPct !== undefined &&
      (Math.abs(o.errorPct[0]) > makespanTolerance * 100 ||
        Math.abs(o.errorPct[1]) > makespanTolerance * 100 ||
        Math.abs(o.errorPct[2]) > speedupTolerance * 100),
  )
  .map((o) => o.lesson);
process.stdout.write(
  `${JSON.stringify({ profile, runs, lessons: outcomes.length, failed, reversed, magnitudes, skipped })}\n`,
);
process.exitCode = failed.length > 0 || reversed.length > 0 ? 1 : 0;
