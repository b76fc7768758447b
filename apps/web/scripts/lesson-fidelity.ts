// The fidelity check of the lessons: every lesson's before and after workload, at its default
// parameters, run on the GPU a warm-up then REPS times through the real server (the page's own
// path: lesson-gpu.ts), and simulated on the profile calibrated on that GPU.
//   on the GPU machine (bundled; device-run.sh fidelity):
//     node --experimental-websocket lesson-fidelity.mjs measure http://127.0.0.1:PORT OUT_DIR [REPS]
//     writes every one-GPU lesson's measured traces under OUT_DIR/fid/, then OUT_DIR/fidelity.json
//     from them (env FIDELITY_LESSONS=id,id and FIDELITY_PAUSE_MS for diagnosis runs)
//   from kept traces (fidelity-traces-*.tar.xz unpacked into OUT_DIR):
//     pnpm tsx apps/web/scripts/lesson-fidelity.ts collect OUT_DIR REPS DEVICE DRIVER DATE
//   here: pnpm tsx apps/web/scripts/lesson-fidelity.ts report fixtures/runs/fidelity-h100.json h100
//   against a session's own calibration (the shipped profile of that GPU with its values):
//     pnpm tsx apps/web/scripts/lesson-fidelity.ts report FIDELITY_JSON --calibration CALIBRATION_JSON
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { analyzeTrace } from '@streamscope/analysis';
import { profileFromCalibration } from '@streamscope/simulator';
import type { Trace } from '@streamscope/trace';
import { loadTrace, saveTrace } from '@streamscope/trace';
import type { WorkloadInput } from '@streamscope/workload';
import { getTraceBytes } from '../src/api/client.ts';
import { lessons } from '../src/lessons/lesson-catalogue.ts';
import type { FidelityMeasurement } from '../src/lessons/lesson-fidelity.ts';
import {
  fidelityRows,
  formatFidelity,
  measurementFromRuns,
} from '../src/lessons/lesson-fidelity.ts';
import { runOnServer } from '../src/lessons/lesson-gpu.ts';
import { opLatencies } from '../src/lessons/lesson-measure.ts';
import type { Lesson } from '../src/lessons/lesson-types.ts';
import {
  afterParams,
  beforeParams,
  buildLessonWorkload,
  lessonDefaults,
} from '../src/lessons/run-lesson-pair.ts';

/** Makespan and measure of one run's trace, as the lesson page reads them. */
function sideFigures(lesson: Lesson, trace: Trace): { makespanNs: number; measureNs: number } {
  const makespanNs = analyzeTrace(trace).metrics.makespanNs;
  const measureNs =
    lesson.measure === undefined ? makespanNs : opLatencies(trace, lesson.measure).meanNs;
  return { makespanNs, measureNs };
}

// The lessons of one GPU (the fidelity runs on a one-GPU machine; ddp-overlap needs two).
const oneGpuLessons = lessons.filter((l) => (l.gpus ?? 1) === 1);

const traceFile = (outDir: string, lessonId: string, side: string, rep: number): string =>
  path.join(outDir, 'fid', `${lessonId}.${side}.${rep}.sstrace`);

async function measure(baseUrl: string, outDir: string, reps: number): Promise<void> {
  // The page's API client speaks relative URLs to the page's own origin.
  const base = new URL(baseUrl);
  Object.assign(globalThis, { location: { protocol: base.protocol, host: base.host } });
  const nodeFetch = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) =>
    nodeFetch(typeof input === 'string' ? new URL(input, base) : input, init);
  const run = async (workload: WorkloadInput): Promise<Trace> =>
    loadTrace(await getTraceBytes(await runOnServer(workload, 'cuda', '')));
  mkdirSync(path.join(outDir, 'fid'), { recursive: true });
  // FIDELITY_LESSONS=a,b measures only those lessons (a diagnosis run); FIDELITY_PAUSE_MS waits
  // between runs, so the server's work on one run's trace cannot overlap the next run.
  const only = process.env['FIDELITY_LESSONS']?.split(',').filter((id) => id !== '');
  const unknown = only?.filter((id) => !oneGpuLessons.some((l) => l.id === id)) ?? [];
  if (unknown.length > 0) {
    throw new Error(`FIDELITY_LESSONS: no one-GPU lesson ${unknown.join(', ')}`);
  }
  const pauseMs = Number(process.env['FIDELITY_PAUSE_MS'] ?? 0);
  const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, pauseMs));
  for (const lesson of oneGpuLessons.filter((l) => only === undefined || only.includes(l.id))) {
    const params = lessonDefaults(lesson);
    const sides = {
      before: buildLessonWorkload(lesson, beforeParams(lesson, params)).workload,
      after: buildLessonWorkload(lesson, afterParams(lesson, params)).workload,
    };
    // On a cold GPU the first run of a lesson is off by up to 30%: one warm-up of each side.
    // Then before and after alternate, so a host that drifts during the runs moves both sides
    // alike and the speedup (a ratio of the two medians) keeps its meaning.
    await run(sides.before);
    await run(sides.after);
    for (let rep = 0; rep < reps; rep++) {
      for (const side of ['before', 'after'] as const) {
        await pause();
        writeFileSync(traceFile(outDir, lesson.id, side, rep), saveTrace(await run(sides[side])));
      }
    }
  }
  collect(outDir, reps, {
    device: process.env['GPU_NAME'] ?? 'unknown',
    driver: process.env['DRIVER_VERSION'] ?? 'unknown',
    date: new Date().toISOString().slice(0, 10),
  });
}

/** fidelity.json from the traces under OUT_DIR/fid/ (measurementFromRuns says which are kept). */
function collect(
  outDir: string,
  reps: number,
  meta: Pick<FidelityMeasurement, 'device' | 'driver' | 'date'>,
): void {
  const { measurement, leftOut } = measurementFromRuns(lessons, meta, reps, (id, side, rep) => {
    const file = traceFile(outDir, id, side, rep);
    const lesson = lessons.find((l) => l.id === id)!;
    return existsSync(file) ? sideFigures(lesson, loadTrace(readFileSync(file))) : undefined;
  });
  for (const line of leftOut) {
    process.stdout.write(`left out: ${line}\n`);
  }
  for (const l of measurement.lessons) {
    for (const side of ['before', 'after'] as const) {
      process.stdout.write(
        `${l.id} ${side}: makespans ${l[side].makespansNs.map((v) => (v / 1e6).toFixed(3)).join(' ')} ms\n`,
      );
    }
  }
  writeFileSync(path.join(outDir, 'fidelity.json'), JSON.stringify(measurement, null, 1) + '\n');
}

const [command, a, b, c, d, e] = process.argv.slice(2);
// report FILE, report FILE PROFILE or report FILE --calibration CALIBRATION_JSON, nothing else
const reportRest = process.argv.slice(4);
const reportArgsOk =
  reportRest.length === 0 ||
  (reportRest.length === 1 && !b!.startsWith('-')) ||
  (reportRest.length === 2 && b === '--calibration');
if (
  command === 'measure' &&
  a !== undefined &&
  b !== undefined &&
  typeof WebSocket !== 'undefined'
) {
  await measure(a, b, Number(c ?? 5));
} else if (
  command === 'collect' &&
  a !== undefined &&
  b !== undefined &&
  c !== undefined &&
  d !== undefined &&
  e !== undefined
) {
  collect(a, Number(b), { device: c, driver: d, date: e });
} else if (command === 'report' && a !== undefined && reportArgsOk) {
  const measurement = JSON.parse(readFileSync(a, 'utf8')) as FidelityMeasurement;
  const calibrated =
    b === '--calibration' ? profileFromCalibration(JSON.parse(readFileSync(c!, 'utf8'))) : null;
  const label = calibrated === null ? (b ?? 'h100') : `${calibrated.name} (${path.basename(c!)})`;
  const rows = fidelityRows(lessons, measurement, calibrated ?? label);
  process.stdout.write(formatFidelity(rows, measurement, label) + '\n');
} else {
  process.stderr.write(
    'usage: lesson-fidelity measure http://HOST:PORT OUT_DIR [REPS] (node --experimental-websocket)\n' +
      '       lesson-fidelity collect OUT_DIR REPS DEVICE DRIVER DATE\n' +
      '       lesson-fidelity report FIDELITY_JSON [PROFILE | --calibration CALIBRATION_JSON]\n',
  );
  process.exitCode = 2;
}
