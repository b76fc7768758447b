// The fidelity measurement: every lesson's before and after workload run on the GPU, a warm-up
// then `reps` times, with the figures the lesson page compares (makespan, and the lesson's own
// measure where it has one). Runs on the GPU machine (device-main.mjs fidelity); the report
// beside the simulator is fidelity-report.ts.
import { analyzeTrace } from '@streamscope/analysis';
import type { Trace } from '@streamscope/trace';
import type { Plan } from '@streamscope/workload';
import { lessons } from '../../apps/web/src/lessons/lesson-catalogue.ts';
import { opLatencies } from '../../apps/web/src/lessons/lesson-measure.ts';
import {
  afterParams,
  beforeParams,
  buildLessonWorkload,
  lessonDefaults,
} from '../../apps/web/src/lessons/run-lesson-pair.ts';
import type { Lesson } from '../../apps/web/src/lessons/lesson-types.ts';

/** One side of a lesson measured on the GPU: per run, ns. */
export interface MeasuredSide {
  readonly makespansNs: readonly number[];
  /** The lesson's measure (urgent-kernel latency), or the makespan again. */
  readonly measuresNs: readonly number[];
}

export interface MeasuredLesson {
  readonly id: string;
  readonly before: MeasuredSide;
  readonly after: MeasuredSide;
}

/** What `device-run.sh fidelity` writes (fidelity-<gpu>.json under fixtures/runs/). */
export interface FidelityMeasurement {
  readonly device: string;
  readonly driver: string;
  readonly date: string;
  readonly reps: number;
  readonly lessons: readonly MeasuredLesson[];
}

/** The plans of a lesson's two runs at its default parameters, as the lesson page builds them. */
export function lessonPlans(lesson: Lesson): { before: Plan; after: Plan } {
  const params = lessonDefaults(lesson);
  return {
    before: buildLessonWorkload(lesson, beforeParams(lesson, params)).plan,
    after: buildLessonWorkload(lesson, afterParams(lesson, params)).plan,
  };
}

/** Makespan and measure of one run's trace, as the lesson page reads them. */
export function sideFigures(lesson: Lesson, trace: Trace): { makespanNs: number; measureNs: number } {
  const makespanNs = analyzeTrace(trace).metrics.makespanNs;
  const measureNs =
    lesson.measure === undefined ? makespanNs : opLatencies(trace, lesson.measure).meanNs;
  return { makespanNs, measureNs };
}

/**
 * Runs every lesson's two workloads `reps` times after one warm-up run each (on a cold GPU
 * the first run of a lesson is off by up to 30%); `keep` receives every measured trace.
 */
export async function measureLessons(
  run: (plan: Plan) => Promise<Trace>,
  reps: number,
  keep: (lesson: string, side: 'before' | 'after', rep: number, trace: Trace) => void,
  log: (line: string) => void,
): Promise<MeasuredLesson[]> {
  const out: MeasuredLesson[] = [];
  for (const lesson of lessons) {
    const plans = lessonPlans(lesson);
    const sides = { before: { m: [] as number[], x: [] as number[] }, after: { m: [] as number[], x: [] as number[] } };
    for (const side of ['before', 'after'] as const) {
      await run(plans[side]);
      for (let rep = 0; rep < reps; rep++) {
        const trace = await run(plans[side]);
        const f = sideFigures(lesson, trace);
        sides[side].m.push(f.makespanNs);
        sides[side].x.push(f.measureNs);
        keep(lesson.id, side, rep, trace);
      }
      log(
        `fidelity ${lesson.id} ${side}: makespans ${sides[side].m.map((v) => (v / 1e6).toFixed(3)).join(' ')} ms` +
          (lesson.measure === undefined
            ? ''
            : `; ${lesson.measure.label} ${sides[side].x.map((v) => (v / 1e3).toFixed(1)).join(' ')} µs`),
      );
    }
    out.push({
      id: lesson.id,
      before: { makespansNs: sides.before.m, measuresNs: sides.before.x },
      after: { makespansNs: sides.after.m, measuresNs: sides.after.x },
    });
  }
  return out;
}
