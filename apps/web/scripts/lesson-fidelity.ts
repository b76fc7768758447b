// The fidelity check of the lessons: every lesson's before and after workload, at its default
// parameters, run on the GPU a warm-up then REPS times through the real server (the page's own
// path: lesson-gpu.ts), and simulated on the profile calibrated on that GPU.
//   on the GPU machine (bundled; device-run.sh fidelity):
//     node --experimental-websocket lesson-fidelity.mjs measure http://127.0.0.1:PORT OUT_DIR [REPS]
//     writes OUT_DIR/fidelity.json and every measured trace under OUT_DIR/fid/
//   here: pnpm tsx apps/web/scripts/lesson-fidelity.ts report fixtures/runs/fidelity-h100.json h100
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { analyzeTrace } from '@streamscope/analysis';
import type { Trace } from '@streamscope/trace';
import { loadTrace, saveTrace } from '@streamscope/trace';
import type { WorkloadInput } from '@streamscope/workload';
import { getTraceBytes } from '../src/api/client.ts';
import { lessons } from '../src/lessons/lesson-catalogue.ts';
import type { FidelityMeasurement, MeasuredLesson } from '../src/lessons/lesson-fidelity.ts';
import { fidelityRows, formatFidelity } from '../src/lessons/lesson-fidelity.ts';
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
  const measured: MeasuredLesson[] = [];
  for (const lesson of lessons) {
    const params = lessonDefaults(lesson);
    const sides = {
      before: buildLessonWorkload(lesson, beforeParams(lesson, params)).workload,
      after: buildLessonWorkload(lesson, afterParams(lesson, params)).workload,
    };
    const figures = {
      before: { m: [] as number[], x: [] as number[] },
      after: { m: [] as number[], x: [] as number[] },
    };
    for (const side of ['before', 'after'] as const) {
      // On a cold GPU the first run of a lesson is off by up to 30%.
      await run(sides[side]);
      for (let rep = 0; rep < reps; rep++) {
        const trace = await run(sides[side]);
        const f = sideFigures(lesson, trace);
        figures[side].m.push(f.makespanNs);
        figures[side].x.push(f.measureNs);
        writeFileSync(
          path.join(outDir, 'fid', `${lesson.id}.${side}.${rep}.sstrace`),
          saveTrace(trace),
        );
      }
      process.stdout.write(
        `${lesson.id} ${side}: makespans ${figures[side].m.map((v) => (v / 1e6).toFixed(3)).join(' ')} ms\n`,
      );
    }
    measured.push({
      id: lesson.id,
      before: { makespansNs: figures.before.m, measuresNs: figures.before.x },
      after: { makespansNs: figures.after.m, measuresNs: figures.after.x },
    });
  }
  const result: FidelityMeasurement = {
    device: process.env['GPU_NAME'] ?? 'unknown',
    driver: process.env['DRIVER_VERSION'] ?? 'unknown',
    date: new Date().toISOString().slice(0, 10),
    reps,
    lessons: measured,
  };
  writeFileSync(path.join(outDir, 'fidelity.json'), JSON.stringify(result, null, 1) + '\n');
}

const [command, a, b, c] = process.argv.slice(2);
if (
  command === 'measure' &&
  a !== undefined &&
  b !== undefined &&
  typeof WebSocket !== 'undefined'
) {
  await measure(a, b, Number(c ?? 5));
} else if (command === 'report' && a !== undefined) {
  const measurement = JSON.parse(readFileSync(a, 'utf8')) as FidelityMeasurement;
  const profile = b ?? 'h100';
  process.stdout.write(
    formatFidelity(fidelityRows(lessons, measurement, profile), measurement, profile) + '\n',
  );
} else {
  process.stderr.write(
    'usage: lesson-fidelity measure http://HOST:PORT OUT_DIR [REPS] (node --experimental-websocket)\n' +
      '       lesson-fidelity report FIDELITY_JSON [PROFILE]\n',
  );
  process.exitCode = 2;
}
