import type { Analysis, Gap, MetricDelta } from '@streamscope/analysis';
import { analyzeTrace, compareTraces } from '@streamscope/analysis';
import type { DeviceProfile } from '@streamscope/simulator';
import { findProfile, simulate } from '@streamscope/simulator';
import type { Trace } from '@streamscope/trace';
import type { Plan, PresetInfo, WorkloadInput } from '@streamscope/workload';
import { buildPreset, parseSize, presets, validateWorkload } from '@streamscope/workload';
import type { LessonFinding } from './lesson-finding.ts';
import type { OpLatencies } from './lesson-measure.ts';
import { latencyFinding, opLatencies } from './lesson-measure.ts';
import { explainDifference } from './lesson-explain.ts';
import type { Lesson, LessonParams, ParamValue } from './lesson-types.ts';

/** One of the two runs of a lesson, without its trace: plain data a worker can post. */
export interface LessonSideSummary {
  readonly params: LessonParams;
  /** The spec as the preset wrote it (defaults left implicit), ready for the editor. */
  readonly workload: WorkloadInput;
  readonly makespanNs: number;
  /** What the speedup compares: the makespan, or the lesson's measure (a mean latency). */
  readonly measureNs: number;
  readonly opCount: number;
  /** Stream gaps with their causes (the analysis' listed ones), for shading the timeline. */
  readonly gaps: readonly Gap[];
  /** Share of communication kernel time under compute kernels; null without communication. */
  readonly commComputeOverlap: number | null;
}

/** Everything about a lesson pair except the two traces (which travel as encoded bytes). */
export interface LessonPairSummary {
  readonly lessonId: string;
  readonly profile: string;
  readonly before: LessonSideSummary;
  readonly after: LessonSideSummary;
  /** before.measureNs / after.measureNs: above 1 when removing the pitfall made it faster. */
  readonly speedup: number;
  /** What the speedup compares, for the UI: "makespan" or the lesson measure's label. */
  readonly measureLabel: string;
  /** compareTraces' metric differences (a = before, b = after). */
  readonly metrics: readonly MetricDelta[];
  readonly findings: readonly LessonFinding[];
}

export interface LessonPair extends LessonPairSummary {
  readonly beforeTrace: Trace;
  readonly afterTrace: Trace;
}

export class LessonRunError extends Error {
  constructor(
    message: string,
    readonly paths: readonly string[] = [],
  ) {
    super(message);
    this.name = 'LessonRunError';
  }
}

export function presetOf(lesson: Lesson): PresetInfo {
  const preset = presets.find((p) => p.name === lesson.preset);
  if (preset === undefined) {
    throw new LessonRunError(
      `lesson ${lesson.id} needs preset ${lesson.preset}, which does not exist`,
    );
  }
  return preset;
}

/** The parameters a lesson opens with: the preset's defaults, the lesson's pins, pitfall fixed. */
export function lessonDefaults(lesson: Lesson): LessonParams {
  const params: Record<string, ParamValue> = {};
  for (const param of presetOf(lesson).params) {
    // Size defaults are written as text ("64MiB"); the sliders work in bytes.
    params[param.name] =
      param.type === 'size' && typeof param.default === 'string'
        ? parseSize(param.default)
        : param.default;
  }
  return { ...params, ...lesson.fixedParams, [lesson.pitfall.param]: lesson.pitfall.offValue };
}

/** The before run: the same parameters with the pitfall switched on. */
export function beforeParams(lesson: Lesson, params: LessonParams): LessonParams {
  return { ...params, ...lesson.fixedParams, [lesson.pitfall.param]: lesson.pitfall.onValue };
}

/** The after run: the learner's parameters, pitfall toggle included. */
export function afterParams(lesson: Lesson, params: LessonParams): LessonParams {
  return { ...params, ...lesson.fixedParams };
}

/** One run of a pair: its parameters, the spec built from them and the trace it produced. */
export interface LessonRun {
  readonly params: LessonParams;
  readonly workload: WorkloadInput;
  readonly trace: Trace;
}

interface AnalysedSide {
  readonly summary: LessonSideSummary;
  readonly trace: Trace;
  readonly analysis: Analysis;
  readonly latencies?: OpLatencies;
}

/** Builds and validates the preset's workload; the plan is what a backend runs. */
export function buildLessonWorkload(
  lesson: Lesson,
  params: LessonParams,
): { workload: WorkloadInput; plan: Plan } {
  const workload = buildPreset(lesson.preset, params);
  const checked = validateWorkload(workload);
  if (!checked.ok) {
    const paths = checked.errors.map((e) => `${e.path}: ${e.message}`);
    throw new LessonRunError(
      `the ${lesson.preset} workload is not valid: ${paths.join('; ')}`,
      paths,
    );
  }
  return { workload, plan: checked.plan };
}

/** A device profile by name, or one given whole (a calibration's). */
export type ProfileChoice = string | DeviceProfile;

function simulateRun(lesson: Lesson, params: LessonParams, choice: ProfileChoice): LessonRun {
  const { workload, plan } = buildLessonWorkload(lesson, params);
  const profile = typeof choice === 'string' ? findProfile(choice) : choice;
  if (profile === undefined) {
    throw new LessonRunError(`no device profile named ${choice as string}`);
  }
  return { params, workload, trace: simulate(plan, profile) };
}

function analyseRun(lesson: Lesson, run: LessonRun): AnalysedSide {
  const analysis = analyzeTrace(run.trace);
  const latencies =
    lesson.measure === undefined ? undefined : opLatencies(run.trace, lesson.measure);
  return {
    summary: {
      params: run.params,
      workload: run.workload,
      makespanNs: analysis.metrics.makespanNs,
      measureNs: latencies?.meanNs ?? analysis.metrics.makespanNs,
      opCount: run.trace.ops.count,
      gaps: analysis.gaps.stream.listed,
      commComputeOverlap: analysis.metrics.overlap.commCompute,
    },
    trace: run.trace,
    analysis,
    latencies,
  };
}

/**
 * Analyses the two runs of a lesson (simulated or measured on a GPU), compares them and explains
 * the difference. `profile` names where they ran: a device profile or a GPU.
 */
export function pairFromRuns(
  lesson: Lesson,
  profile: string,
  beforeRun: LessonRun,
  afterRun: LessonRun,
): LessonPair {
  const before = analyseRun(lesson, beforeRun);
  const after = analyseRun(lesson, afterRun);
  const comparison = compareTraces(before.trace, after.trace);
  const speedup =
    after.summary.measureNs > 0 ? before.summary.measureNs / after.summary.measureNs : 1;
  const findings = explainDifference(before, after, comparison);
  if (
    lesson.measure !== undefined &&
    before.latencies !== undefined &&
    after.latencies !== undefined
  ) {
    findings.unshift(latencyFinding(lesson.measure, before.latencies, after.latencies));
  }
  return {
    lessonId: lesson.id,
    profile,
    before: before.summary,
    after: after.summary,
    speedup,
    measureLabel: lesson.measure?.label ?? 'makespan',
    metrics: comparison.metrics,
    findings,
    beforeTrace: before.trace,
    afterTrace: after.trace,
  };
}

/**
 * Builds the lesson's workload twice (pitfall on, and as the learner set it), simulates both on
 * one device profile, analyses both and explains the difference. Pure: runs in a worker or a test.
 */
export function runLessonPair(
  lesson: Lesson,
  params: LessonParams,
  profile: ProfileChoice,
): LessonPair {
  return pairFromRuns(
    lesson,
    typeof profile === 'string' ? profile : profile.name,
    simulateRun(lesson, beforeParams(lesson, params), profile),
    simulateRun(lesson, afterParams(lesson, params), profile),
  );
}
