import { describe, expect, it } from 'vitest';
import { FakeLessonWorker } from './fake-lesson-worker.test-helper.ts';
import { findLesson } from './lesson-catalogue.ts';
import { createWorkerLessonRunner } from './lesson-runner.ts';
import { lessonDefaults, runLessonPair } from './run-lesson-pair.ts';

function defaultsOf(id: string) {
  const lesson = findLesson(id);
  if (lesson === undefined) {
    throw new Error(`no lesson ${id}`);
  }
  return { lesson, params: lessonDefaults(lesson) };
}

describe('the worker lesson runner', () => {
  it('returns both traces decoded, equal to running the pair in place', async () => {
    const worker = new FakeLessonWorker();
    const runner = createWorkerLessonRunner(worker.asWorker());
    const { lesson, params } = defaultsOf('pinned-vs-pageable');
    const result = await runner.run({ lessonId: lesson.id, params, profile: 'h100' });
    const direct = runLessonPair(lesson, params, 'h100');
    expect(result?.summary.speedup).toBe(direct.speedup);
    expect(result?.beforeTrace.ops.count).toBe(direct.beforeTrace.ops.count);
    expect(result?.afterTrace.ops.count).toBe(direct.afterTrace.ops.count);
    expect(result?.afterTrace.spanNs()).toBe(direct.afterTrace.spanNs());
    runner.dispose();
    expect(worker.terminated).toBe(true);
  });

  it('computes only the newest of the jobs that arrive while one runs', async () => {
    const worker = new FakeLessonWorker();
    const runner = createWorkerLessonRunner(worker.asWorker());
    const { lesson, params } = defaultsOf('chunked-pipeline');
    const first = runner.run({
      lessonId: lesson.id,
      params: { ...params, chunks: 2 },
      profile: 'h100',
    });
    const second = runner.run({
      lessonId: lesson.id,
      params: { ...params, chunks: 4 },
      profile: 'h100',
    });
    const third = runner.run({
      lessonId: lesson.id,
      params: { ...params, chunks: 16 },
      profile: 'h100',
    });
    const [a, b, c] = await Promise.all([first, second, third]);
    expect(a?.summary.after.params['chunks']).toBe(2);
    expect(b).toBeUndefined();
    expect(c?.summary.after.params['chunks']).toBe(16);
    // The replaced job never reached the worker.
    expect(worker.requests.map((r) => r.params['chunks'])).toEqual([2, 16]);
    runner.dispose();
  });

  it('rejects with the worker’s message when a pair cannot be built', async () => {
    const worker = new FakeLessonWorker();
    const runner = createWorkerLessonRunner(worker.asWorker());
    const { lesson, params } = defaultsOf('chunked-pipeline');
    await expect(
      runner.run({ lessonId: lesson.id, params, profile: 'no-such-gpu' }),
    ).rejects.toThrow(/no device profile named no-such-gpu/);
    await expect(runner.run({ lessonId: 'nope', params, profile: 'h100' })).rejects.toThrow(
      /no lesson nope/,
    );
    runner.dispose();
  });
});
