import { describe, expect, it } from 'vitest';
import { findLesson, lessons } from './lesson-catalogue.ts';
import { effectOfSpeedup } from './lesson-types.ts';
import type { Lesson } from './lesson-types.ts';
import { LessonRunError, lessonDefaults, runLessonPair } from './run-lesson-pair.ts';

/**
 * Each pair is two simulations and their analyses; keeping both traces below this many ops
 * keeps an answer well under a second (the analysis benchmark: a million ops per second).
 */
const maxOpsPerRun = 2_000;

const cases = lessons.flatMap((lesson) =>
  Object.entries(lesson.effects).map(([profile, effect]) => [lesson.id, profile, effect] as const),
);

function lessonOf(id: string): Lesson {
  const lesson = findLesson(id);
  if (lesson === undefined) {
    throw new Error(`no lesson ${id}`);
  }
  return lesson;
}

describe('runLessonPair on the simulator', () => {
  it.each(cases)('%s on %s: fixing the pitfall makes it %s', (id, profile, effect) => {
    const lesson = lessonOf(id);
    const pair = runLessonPair(lesson, lessonDefaults(lesson), profile);
    expect(pair.before.opCount).toBeGreaterThan(0);
    expect(pair.after.opCount).toBeGreaterThan(0);
    expect(pair.before.opCount).toBeLessThan(maxOpsPerRun);
    expect(pair.after.opCount).toBeLessThan(maxOpsPerRun);
    expect(pair.beforeTrace.ops.count).toBe(pair.before.opCount);
    expect(pair.speedup).toBeCloseTo(pair.before.measureNs / pair.after.measureNs, 9);
    expect(effectOfSpeedup(pair.speedup)).toBe(effect);
  });

  it.each(lessons.map((l) => [l.id, l] as const))(
    '%s: with the pitfall kept in the after run both runs are the same',
    (_id, lesson) => {
      const params = {
        ...lessonDefaults(lesson),
        [lesson.pitfall.param]: lesson.pitfall.onValue,
      };
      const pair = runLessonPair(lesson, params, lesson.defaultProfile);
      expect(pair.speedup).toBe(1);
      expect(pair.after.opCount).toBe(pair.before.opCount);
      expect(pair.findings.filter((f) => f.tone !== 'change')).toEqual([]);
    },
  );

  it.each(lessons.filter((l) => l.effects[l.defaultProfile] === 'faster').map((l) => [l.id, l]))(
    '%s: the findings explain a faster fix and point at ops that exist',
    (_id, lesson) => {
      const pair = runLessonPair(lesson, lessonDefaults(lesson), lesson.defaultProfile);
      expect(pair.findings.length).toBeGreaterThan(0);
      const keys = pair.findings.map((f) => f.key);
      expect(new Set(keys).size).toBe(keys.length);
      for (const finding of pair.findings) {
        expect(finding.message.length).toBeGreaterThan(0);
        expect(finding.opIndices.length).toBeGreaterThan(0);
        const count = finding.side === 'before' ? pair.before.opCount : pair.after.opCount;
        for (const op of finding.opIndices) {
          expect(Number.isInteger(op) && op >= 0 && op < count).toBe(true);
        }
      }
    },
  );

  it('names what the pageable lesson fixed, in numbers taken from the traces', () => {
    const lesson = lessonOf('pinned-vs-pageable');
    const pair = runLessonPair(lesson, lessonDefaults(lesson), 'h100');
    const fixed = pair.findings.find((f) => f.source === 'pageable-copy');
    expect(fixed?.tone).toBe('fixed');
    expect(fixed?.side).toBe('before');
    const bandwidth = pair.findings.find((f) => f.key === 'bandwidth:copy-htod');
    // Pinned copies run several times faster than staged pageable ones.
    expect(bandwidth?.message).toMatch(/GB\/s before; .* GB\/s after \((\d+\.\d+)×\)/);
    const ratio = Number(/\((\d+\.\d+)×\)/.exec(bandwidth?.message ?? '')?.[1]);
    expect(ratio).toBeGreaterThan(2);
  });

  it('measures the priorities lesson by the urgent kernels’ latency, not the makespan', () => {
    const lesson = lessonOf('stream-priorities');
    const pair = runLessonPair(lesson, lessonDefaults(lesson), 'h100');
    expect(pair.measureLabel).toBe('urgent-kernel latency');
    expect(pair.before.measureNs).not.toBe(pair.before.makespanNs);
    // The makespan barely moves (within 10%) while the latency falls by more than 2×.
    expect(effectOfSpeedup(pair.before.makespanNs / pair.after.makespanNs)).toBe('same');
    expect(pair.speedup).toBeGreaterThan(2);
    const latency = pair.findings[0];
    expect(latency?.source).toBe('measure:latency');
    expect(latency?.opIndices.length).toBe(4);
  });

  it('gives the DDP lesson its comm–compute overlap: none after the backward, most with overlap', () => {
    const lesson = lessonOf('ddp-overlap');
    const pair = runLessonPair(lesson, lessonDefaults(lesson), 'h100');
    // Before, every all-reduce follows the last backward kernel; after, most run under them.
    expect(pair.before.commComputeOverlap).toBe(0);
    expect(pair.after.commComputeOverlap).toBeGreaterThan(0.6);
    const moved = pair.metrics.find((m) => m.name === 'comm/compute overlap');
    expect(moved?.b).toBe(pair.after.commComputeOverlap);
    // A lesson without communication has no such figure.
    const pipeline = runLessonPair(lessonOf('chunked-pipeline'), {}, 'h100');
    expect(pipeline.after.commComputeOverlap).toBeNull();
  });

  it('follows the sliders: more chunks make the pipeline more parallel', () => {
    const lesson = lessonOf('chunked-pipeline');
    const two = runLessonPair(lesson, { ...lessonDefaults(lesson), chunks: 2 }, 'h100');
    const sixteen = runLessonPair(lesson, { ...lessonDefaults(lesson), chunks: 16 }, 'h100');
    expect(sixteen.after.opCount).toBeGreaterThan(two.after.opCount);
    expect(sixteen.speedup).toBeGreaterThan(two.speedup);
  });

  it('reports a bad parameter or an unknown profile as a LessonRunError', () => {
    const lesson = lessonOf('chunked-pipeline');
    expect(() => runLessonPair(lesson, lessonDefaults(lesson), 'no-such-gpu')).toThrow(
      LessonRunError,
    );
    expect(() => runLessonPair(lesson, { ...lessonDefaults(lesson), chunks: 0 }, 'h100')).toThrow(
      /chunks/,
    );
  });
});
