import { findLesson } from './lesson-catalogue.ts';
import type { LessonRunner, LessonRunResult } from './lesson-runner.ts';
import { createBrowserLessonRunner } from './lesson-runner.ts';
import type { LessonBackend } from './lesson-store.ts';
import { lessonStore } from './lesson-store.ts';
import { setLessonTraces } from './lesson-traces.ts';
import type { ParamValue } from './lesson-types.ts';
import { lessonDefaults } from './run-lesson-pair.ts';

// The Lessons section's actions: every change of lesson, parameter, profile or backend reruns
// the pair. The runner is created on first use; tests install an inline one.

let runner: LessonRunner | undefined;
let runnerFactory: () => LessonRunner = createBrowserLessonRunner;
/** Runs the simulated pair's workloads on a GPU; installed by the page when the server has one. */
let gpuRun: ((simulated: LessonRunResult) => Promise<LessonRunResult>) | undefined;
let generation = 0;

/** Replaces how runners are made (tests: inline). Disposes the current one. */
export function setLessonRunnerFactory(factory: () => LessonRunner): void {
  runner?.dispose();
  runner = undefined;
  runnerFactory = factory;
}

export function setGpuRun(
  run: ((simulated: LessonRunResult) => Promise<LessonRunResult>) | undefined,
): void {
  gpuRun = run;
}

function currentRunner(): LessonRunner {
  runner ??= runnerFactory();
  return runner;
}

async function rerun(): Promise<void> {
  const state = lessonStore.getState();
  if (state.lessonId === null) {
    return;
  }
  const myGeneration = ++generation;
  lessonStore.setState({ status: 'running', error: null });
  try {
    let result = await currentRunner().run({
      lessonId: state.lessonId,
      params: state.params,
      profile: state.profile,
    });
    if (result === undefined || myGeneration !== generation) {
      return;
    }
    let simulated: { beforeNs: number; afterNs: number } | null = null;
    if (state.backend === 'cuda') {
      if (gpuRun === undefined) {
        throw new Error('the server reports no GPU: only the simulator can run this lesson');
      }
      // Keep the simulator's answer to show where it and the measurement differ.
      simulated = {
        beforeNs: result.summary.before.measureNs,
        afterNs: result.summary.after.measureNs,
      };
      result = await gpuRun(result);
      if (myGeneration !== generation) {
        return;
      }
    }
    setLessonTraces(result.beforeTrace, result.afterTrace);
    lessonStore.setState((s) => ({
      status: 'ready',
      summary: result.summary,
      tracesVersion: s.tracesVersion + 1,
      highlight: null,
      simulated,
    }));
  } catch (error) {
    if (myGeneration === generation) {
      lessonStore.setState({
        status: 'error',
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

/** Opens a lesson with its defaults (pitfall fixed, its default profile) and runs it. */
export function openLesson(lessonId: string): Promise<void> {
  const lesson = findLesson(lessonId);
  if (lesson === undefined) {
    lessonStore.setState({ lessonId: null, status: 'error', error: `no lesson ${lessonId}` });
    return Promise.resolve();
  }
  setLessonTraces(undefined, undefined);
  lessonStore.setState((s) => ({
    lessonId,
    params: lessonDefaults(lesson),
    profile: lesson.defaultProfile,
    summary: null,
    highlight: null,
    simulated: null,
    tracesVersion: s.tracesVersion + 1,
  }));
  return rerun();
}

export function closeLesson(): void {
  generation++;
  setLessonTraces(undefined, undefined);
  lessonStore.setState((s) => ({
    lessonId: null,
    summary: null,
    status: 'idle',
    highlight: null,
    tracesVersion: s.tracesVersion + 1,
  }));
}

export function setLessonParam(name: string, value: ParamValue): Promise<void> {
  lessonStore.setState((s) => ({ params: { ...s.params, [name]: value } }));
  return rerun();
}

/** Switches the after run's pitfall on (both runs equal) or off (the fix). */
export function setPitfall(on: boolean): Promise<void> {
  const id = lessonStore.getState().lessonId;
  const lesson = id === null ? undefined : findLesson(id);
  if (lesson === undefined) {
    return Promise.resolve();
  }
  return setLessonParam(
    lesson.pitfall.param,
    on ? lesson.pitfall.onValue : lesson.pitfall.offValue,
  );
}

export function setLessonProfile(profile: string): Promise<void> {
  lessonStore.setState({ profile });
  return rerun();
}

export function setLessonBackend(backend: LessonBackend): Promise<void> {
  lessonStore.setState({ backend });
  return rerun();
}
