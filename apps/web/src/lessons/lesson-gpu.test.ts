import { findProfile, simulate } from '@streamscope/simulator';
import { validateWorkload } from '@streamscope/workload';
import type { WorkloadInput } from '@streamscope/workload';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeLessonWorker } from './fake-lesson-worker.test-helper.ts';
import {
  closeLesson,
  openLesson,
  setGpuRun,
  setLessonBackend,
  setLessonRunnerFactory,
} from './lesson-controller.ts';
import { gpuPairRunner } from './lesson-gpu.ts';
import type { RunWorkload } from './lesson-gpu.ts';
import { createWorkerLessonRunner } from './lesson-runner.ts';
import { initialLessonState, lessonStore } from './lesson-store.ts';

/**
 * Stands in for the server's GPU: runs each workload it is handed on another device profile, so
 * "measured" and simulated answers differ the way a real device would differ from the model.
 */
function otherDevice(profileName: string, handed: WorkloadInput[]): RunWorkload {
  return (workload) => {
    handed.push(workload);
    const checked = validateWorkload(workload);
    const profile = findProfile(profileName);
    if (!checked.ok || profile === undefined) {
      return Promise.reject(new Error('bad workload or profile'));
    }
    return Promise.resolve(simulate(checked.plan, profile));
  };
}

describe('lessons on the GPU backend', () => {
  beforeEach(() => {
    lessonStore.setState(initialLessonState(), true);
    setLessonRunnerFactory(() => createWorkerLessonRunner(new FakeLessonWorker().asWorker()));
  });
  afterEach(() => {
    setGpuRun(undefined);
    closeLesson();
  });

  it('runs the very workloads the simulator ran and keeps its prediction beside the measurement', async () => {
    const handed: WorkloadInput[] = [];
    setGpuRun(gpuPairRunner(otherDevice('k20c', handed), 'test GPU'));
    await openLesson('pinned-vs-pageable');
    const simulated = lessonStore.getState().summary;
    expect(simulated?.profile).toBe('h100');
    await setLessonBackend('cuda');
    const state = lessonStore.getState();
    expect(state.status).toBe('ready');
    expect(state.summary?.profile).toBe('test GPU');
    expect(handed).toEqual([simulated?.before.workload, simulated?.after.workload]);
    // The prediction is the simulator's pair; the summary is the "measured" one.
    expect(state.simulated).toEqual({
      beforeNs: simulated?.before.measureNs,
      afterNs: simulated?.after.measureNs,
    });
    expect(state.summary?.before.measureNs).not.toBe(simulated?.before.measureNs);
    expect(state.summary?.speedup).toBeGreaterThan(1.1);
    expect(state.summary?.findings.length).toBeGreaterThan(0);
  });

  it('refuses the GPU backend when the server has no GPU', async () => {
    await openLesson('cuda-graphs');
    await setLessonBackend('cuda');
    expect(lessonStore.getState().status).toBe('error');
    expect(lessonStore.getState().error).toMatch(/no GPU/);
  });
});
