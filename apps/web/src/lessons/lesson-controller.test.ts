import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeLessonWorker } from './fake-lesson-worker.test-helper.ts';
import {
  closeLesson,
  openLesson,
  setLessonParam,
  setLessonProfile,
  setLessonRunnerFactory,
  setPitfall,
} from './lesson-controller.ts';
import { createWorkerLessonRunner } from './lesson-runner.ts';
import { initialLessonState, lessonStore, toggleHighlight } from './lesson-store.ts';
import { lessonTrace } from './lesson-traces.ts';

describe('the lesson controller', () => {
  beforeEach(() => {
    lessonStore.setState(initialLessonState(), true);
    setLessonRunnerFactory(() => createWorkerLessonRunner(new FakeLessonWorker().asWorker()));
  });
  afterEach(() => {
    closeLesson();
  });

  it('opens a lesson on its default profile with the pitfall fixed and shows the pair', async () => {
    await openLesson('legacy-vs-non-blocking');
    const state = lessonStore.getState();
    expect(state.status).toBe('ready');
    expect(state.profile).toBe('h100');
    expect(state.params['mode']).toBe('non-blocking');
    expect(state.summary?.before.params['mode']).toBe('legacy');
    expect(state.summary?.speedup).toBeGreaterThan(1.1);
    expect(lessonTrace('before')?.ops.count).toBe(state.summary?.before.opCount);
    expect(lessonTrace('after')?.ops.count).toBe(state.summary?.after.opCount);
  });

  it('brings the speedup back to 1 when the pitfall is kept, and restores it when fixed', async () => {
    await openLesson('over-synchronization');
    const fixed = lessonStore.getState().summary?.speedup ?? 0;
    const version = lessonStore.getState().tracesVersion;
    await setPitfall(true);
    expect(lessonStore.getState().params['syncEveryChunk']).toBe(true);
    expect(lessonStore.getState().summary?.speedup).toBe(1);
    expect(lessonStore.getState().tracesVersion).toBeGreaterThan(version);
    await setPitfall(false);
    expect(lessonStore.getState().summary?.speedup).toBe(fixed);
  });

  it('reruns on a slider or profile change and reports what the preset rejects', async () => {
    await openLesson('issue-order-one-engine');
    expect(lessonStore.getState().summary?.speedup).toBeGreaterThan(1.1);
    await setLessonProfile('c2050');
    expect(lessonStore.getState().summary?.profile).toBe('c2050');
    expect(lessonStore.getState().summary?.speedup).toBeLessThan(0.9);
    await setLessonParam('streams', 0);
    expect(lessonStore.getState().status).toBe('error');
    expect(lessonStore.getState().error).toMatch(/streams/);
  });

  it('highlights a finding’s ops and clears the highlight on a second click or a rerun', async () => {
    await openLesson('pinned-vs-pageable');
    const finding = lessonStore.getState().summary?.findings[0];
    expect(finding).toBeDefined();
    if (finding === undefined) {
      return;
    }
    toggleHighlight(finding);
    expect(lessonStore.getState().highlight?.opIndices).toEqual(finding.opIndices);
    toggleHighlight(finding);
    expect(lessonStore.getState().highlight).toBeNull();
    toggleHighlight(finding);
    await setLessonParam('chunks', 8);
    expect(lessonStore.getState().highlight).toBeNull();
  });

  it('says so when asked for a lesson that does not exist', async () => {
    await openLesson('no-such-lesson');
    expect(lessonStore.getState().status).toBe('error');
    expect(lessonStore.getState().error).toMatch(/no-such-lesson/);
  });
});
