import h100Runs from '../../../../fixtures/runs/fidelity-h100.json';
import h200Runs from '../../../../fixtures/runs/fidelity-h200.json';
import type { Lesson } from './lesson-types.ts';
import type { ProfileChoice } from './run-lesson-pair.ts';
import { lessonDefaults, runLessonPair } from './run-lesson-pair.ts';

/** One side of a lesson measured on a GPU: per run, ns. */
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

/**
 * Every lesson's two runs at their default parameters on one GPU, a warm-up then `reps` each
 * (`bash scripts/gpu/device-run.sh fidelity`; fixtures/runs/fidelity-<profile>.json).
 */
export interface FidelityMeasurement {
  readonly device: string;
  readonly driver: string;
  readonly date: string;
  readonly reps: number;
  readonly lessons: readonly MeasuredLesson[];
}

/** One kept run's makespan and the lesson's measure, as the lesson page reads them, ns. */
export interface RunFigures {
  readonly makespanNs: number;
  readonly measureNs: number;
}

/**
 * A fidelity measurement from kept runs (`lesson-fidelity.ts collect`): every lesson with `reps`
 * runs of both sides (`runOf` gives run `rep` of a side, or undefined where none was kept). A
 * lesson of two GPUs or with runs missing is left out, with its reason; none kept is an error.
 */
export function measurementFromRuns(
  all: readonly Lesson[],
  meta: Pick<FidelityMeasurement, 'device' | 'driver' | 'date'>,
  reps: number,
  runOf: (lessonId: string, side: 'before' | 'after', rep: number) => RunFigures | undefined,
): { readonly measurement: FidelityMeasurement; readonly leftOut: readonly string[] } {
  const measured: MeasuredLesson[] = [];
  const leftOut: string[] = [];
  for (const lesson of all) {
    if ((lesson.gpus ?? 1) !== 1) {
      leftOut.push(`${lesson.id}: needs ${lesson.gpus} GPUs (the fidelity run has one)`);
      continue;
    }
    const side = (name: 'before' | 'after'): MeasuredSide | undefined => {
      const runs = Array.from({ length: reps }, (_, rep) => runOf(lesson.id, name, rep));
      return runs.every((r) => r !== undefined)
        ? {
            makespansNs: runs.map((r) => r.makespanNs),
            measuresNs: runs.map((r) => r.measureNs),
          }
        : undefined;
    };
    const before = side('before');
    const after = side('after');
    if (before === undefined || after === undefined) {
      leftOut.push(`${lesson.id}: fewer than ${reps} runs of each side`);
      continue;
    }
    measured.push({ id: lesson.id, before, after });
  }
  if (measured.length === 0) {
    throw new Error(`no lesson has ${reps} runs of both sides (${leftOut.join('; ')})`);
  }
  return { measurement: { ...meta, reps, lessons: measured }, leftOut };
}

/** The measured GPUs, by the device profile built from their calibration. */
export const measuredGpus: Readonly<Record<string, FidelityMeasurement>> = {
  h100: h100Runs,
  h200: h200Runs,
};

/** Median, least and greatest of a list (not empty). */
export function spread(values: readonly number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/**
 * Several measured runs of a lesson's pair as one: the median of each side's makespan and of the
 * speedups (one outlier run of a side does not decide the direction).
 */
export function medianPair(
  runs: readonly {
    readonly before: { readonly makespanNs: number };
    readonly after: { readonly makespanNs: number };
    readonly speedup: number;
  }[],
): { beforeNs: number; afterNs: number; speedup: number } {
  return {
    beforeNs: spread(runs.map((r) => r.before.makespanNs)).median,
    afterNs: spread(runs.map((r) => r.after.makespanNs)).median,
    speedup: spread(runs.map((r) => r.speedup)).median,
  };
}

/** A lesson's measured makespans on the GPU a profile was calibrated on, or undefined. */
export function measuredLesson(lessonId: string, profile: string): MeasuredLesson | undefined {
  return measuredGpus[profile]?.lessons.find((l) => l.id === lessonId);
}

/** One figure of a lesson, simulated beside its measurement. */
export interface FidelityFigure {
  readonly simNs: number;
  readonly medianNs: number;
  readonly minNs: number;
  readonly maxNs: number;
  /** (simulated − median) / median, in percent. */
  readonly errorPct: number;
  /** Within `tolerance` of the median, or inside the measured range. */
  readonly ok: boolean;
}

export interface FidelityRow {
  readonly lesson: string;
  readonly before: FidelityFigure;
  readonly after: FidelityFigure;
  /** Speedup as the lesson computes it (its measure), simulated and measured (medians). */
  readonly speedup: { readonly sim: number; readonly gpu: number; readonly errorPct: number };
  readonly speedupOk: boolean;
}

/** The targets of issue #20: makespans within 10% (or the GPU's own range), speedups 15%. */
export const makespanTolerance = 0.1;
export const speedupTolerance = 0.15;

function figure(simNs: number, measuredNs: readonly number[]): FidelityFigure {
  const s = spread(measuredNs);
  const errorPct = ((simNs - s.median) / s.median) * 100;
  return {
    simNs,
    medianNs: s.median,
    minNs: s.min,
    maxNs: s.max,
    errorPct,
    ok: Math.abs(errorPct) <= makespanTolerance * 100 || (simNs >= s.min && simNs <= s.max),
  };
}

/** Each measured lesson simulated on `profile` at its default parameters, beside the GPU. */
export function fidelityRows(
  all: readonly Lesson[],
  measurement: FidelityMeasurement,
  profile: ProfileChoice,
): FidelityRow[] {
  const rows: FidelityRow[] = [];
  for (const measured of measurement.lessons) {
    const lesson = all.find((l) => l.id === measured.id);
    if (lesson === undefined) {
      continue;
    }
    const sim = runLessonPair(lesson, lessonDefaults(lesson), profile);
    const gpuSpeedup =
      spread(measured.before.measuresNs).median / spread(measured.after.measuresNs).median;
    const speedupError = ((sim.speedup - gpuSpeedup) / gpuSpeedup) * 100;
    rows.push({
      lesson: lesson.id,
      before: figure(sim.before.makespanNs, measured.before.makespansNs),
      after: figure(sim.after.makespanNs, measured.after.makespansNs),
      speedup: { sim: sim.speedup, gpu: gpuSpeedup, errorPct: speedupError },
      speedupOk: Math.abs(speedupError) <= speedupTolerance * 100,
    });
  }
  return rows;
}

const ms = (ns: number): string => (ns / 1e6).toFixed(3);
const pct = (v: number): string => `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`;

/** The fidelity report as text: one line per lesson and side, then the speedups. */
export function formatFidelity(
  rows: readonly FidelityRow[],
  measurement: FidelityMeasurement,
  profile: string,
): string {
  const lines = [
    `fidelity: profile ${profile} against ${measurement.device} (driver ${measurement.driver}, ${measurement.date}), ` +
      `median of ${measurement.reps} runs after a warm-up; ms`,
    'lesson                    side    simulated  measured median [min – max]      error   ',
  ];
  for (const r of rows) {
    for (const side of ['before', 'after'] as const) {
      const f = r[side];
      lines.push(
        `${r.lesson.padEnd(25)} ${side.padEnd(6)} ${ms(f.simNs).padStart(9)}  ${ms(f.medianNs).padStart(9)} [${ms(f.minNs)} – ${ms(f.maxNs)}]`.padEnd(
          78,
        ) + `${pct(f.errorPct).padStart(7)} ${f.ok ? 'ok' : 'OUT'}`,
      );
    }
    lines.push(
      `${r.lesson.padEnd(25)} speedup ${r.speedup.sim.toFixed(2).padStart(8)}x ${r.speedup.gpu.toFixed(2).padStart(9)}x`.padEnd(
        78,
      ) + `${pct(r.speedup.errorPct).padStart(7)} ${r.speedupOk ? 'ok' : 'OUT'}`,
    );
  }
  const out = rows.filter((r) => !r.before.ok || !r.after.ok || !r.speedupOk).map((r) => r.lesson);
  lines.push(JSON.stringify({ profile, lessons: rows.length, outsideTarget: out }));
  return lines.join('\n');
}

const gpuNames: Readonly<Record<string, string>> = { h100: 'an H100', h200: 'an H200' };

/**
 * What the lesson page says beside a simulated pair at the lesson's default parameters, on a
 * profile calibrated on a measured GPU: "On an H100 this measured 18.7 ms before and 2.57 ms
 * after (median of 5 runs); simulated 17.9 ms and 2.54 ms." A lesson with its own measure (the
 * priorities lesson's urgent-kernel latency) says that measure too, as the speedup is of it.
 * Null elsewhere (other settings, profiles without a measurement).
 */
export function measuredLine(
  lesson: Lesson,
  profile: string,
  params: Readonly<Record<string, unknown>>,
  simulated: {
    readonly beforeNs: number;
    readonly afterNs: number;
    readonly measureBeforeNs?: number;
    readonly measureAfterNs?: number;
  },
  format: (ns: number) => string,
): string | null {
  const measured = measuredLesson(lesson.id, profile);
  const run = measuredGpus[profile];
  if (measured === undefined || run === undefined) {
    return null;
  }
  const defaults = lessonDefaults(lesson);
  if (Object.keys(defaults).some((k) => params[k] !== defaults[k])) {
    return null;
  }
  const before = spread(measured.before.makespansNs).median;
  const after = spread(measured.after.makespansNs).median;
  const line =
    `On ${gpuNames[profile] ?? run.device} this measured ${format(before)} before and ` +
    `${format(after)} after (median of ${run.reps} runs); simulated ${format(simulated.beforeNs)} ` +
    `and ${format(simulated.afterNs)}.`;
  const { measureBeforeNs, measureAfterNs } = simulated;
  if (
    lesson.measure === undefined ||
    measureBeforeNs === undefined ||
    measureAfterNs === undefined
  ) {
    return line;
  }
  return (
    `${line} Its ${lesson.measure.label}: measured ` +
    `${format(spread(measured.before.measuresNs).median)} before and ` +
    `${format(spread(measured.after.measuresNs).median)} after; simulated ` +
    `${format(measureBeforeNs)} and ${format(measureAfterNs)}.`
  );
}
