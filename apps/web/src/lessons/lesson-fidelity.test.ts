// @vitest-environment node
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lessons } from './lesson-catalogue.ts';
import type { FidelityMeasurement, FidelityRow } from './lesson-fidelity.ts';
import {
  fidelityRows,
  formatFidelity,
  measuredGpus,
  measuredLine,
  measurementFromRuns,
  medianPair,
  spread,
} from './lesson-fidelity.ts';
import { lessonDefaults } from './run-lesson-pair.ts';

// The lessons beside what the GPUs measured (fixtures/runs/fidelity-<gpu>.json). The lessons
// still outside issue #20's target, and why, are in the simulator's README; a model change that
// moves a lesson in or out of the target shows here and must come with new reports.
const outsideTarget: Readonly<Record<string, readonly string[]>> = {
  h100: [],
  h200: [],
};

/** The lessons with a side or the speedup outside the target. */
function outsideOf(rows: readonly FidelityRow[]): string[] {
  return rows.filter((r) => !r.before.ok || !r.after.ok || !r.speedupOk).map((r) => r.lesson);
}

describe('the measured lessons', () => {
  it('hold every one-GPU lesson, a warm-up then the same number of runs of each side, on both GPUs', () => {
    for (const [gpu, run] of Object.entries(measuredGpus)) {
      const oneGpu = lessons.filter((l) => (l.gpus ?? 1) === 1);
      expect(run.lessons.map((l) => l.id).sort(), gpu).toEqual(oneGpu.map((l) => l.id).sort());
      for (const l of run.lessons) {
        expect(l.before.makespansNs, `${gpu} ${l.id}`).toHaveLength(run.reps);
        expect(l.after.measuresNs, `${gpu} ${l.id}`).toHaveLength(run.reps);
      }
    }
  });

  for (const gpu of ['h100', 'h200'] as const) {
    it(`on ${gpu}: every other lesson within 10% (or the GPU's range), speedups within 15%`, () => {
      const rows = fidelityRows(lessons, measuredGpus[gpu]!, gpu);
      expect(outsideOf(rows)).toEqual(outsideTarget[gpu]);
      // the stored report is this model's (regenerated with the golden digests)
      const stored = readFileSync(
        fileURLToPath(new URL(`../../../../fixtures/runs/fidelity-${gpu}.txt`, import.meta.url)),
        'utf8',
      );
      expect(stored.trimEnd()).toBe(formatFidelity(rows, measuredGpus[gpu]!, gpu));
    });
  }

  // fixtures/runs/fidelity-<gpu>-2026-11-28*.*: other machines of each kind, each on its own
  // lease, against the shipped profile calibrated on the first. The H200 of 2026-11-28 shows
  // what the model still misses (fidelity-h200-2026-11-28.txt says why); the H200 "d" has a
  // faster host and faster pageable staging than the one the profile was calibrated on; "f" was
  // measured after the crowding model changed, to check it on a machine it was not fitted to.
  const secondMachines = [
    { gpu: 'h100', file: 'fidelity-h100-2026-11-28b.json', outside: [] },
    { gpu: 'h200', file: 'fidelity-h200-2026-11-28.json', outside: ['stream-priorities'] },
    { gpu: 'h200', file: 'fidelity-h200-2026-11-28c.json', outside: [] },
    { gpu: 'h200', file: 'fidelity-h200-2026-11-28d.json', outside: ['pinned-vs-pageable'] },
    { gpu: 'h200', file: 'fidelity-h200-2026-11-28f.json', outside: ['issue-order-two-engines'] },
  ] as const;
  for (const { gpu, file, outside } of secondMachines) {
    it(`on another ${gpu} machine (${file}), calibrated elsewhere: outside the target ${JSON.stringify(outside)}`, () => {
      const other = JSON.parse(
        readFileSync(
          fileURLToPath(new URL(`../../../../fixtures/runs/${file}`, import.meta.url)),
          'utf8',
        ),
      ) as FidelityMeasurement;
      expect(other.lessons).toHaveLength(measuredGpus[gpu]!.lessons.length);
      expect(outsideOf(fidelityRows(lessons, other, gpu))).toEqual(outside);
    });
  }

  it('give the lesson page its line at the lesson settings on a measured profile only', () => {
    const lesson = lessons.find((l) => l.id === 'pinned-vs-pageable')!;
    const params = lessonDefaults(lesson);
    const sim = { beforeNs: 17_900_000, afterNs: 2_540_000 };
    const ms = (ns: number): string => `${(ns / 1e6).toFixed(2)} ms`;
    const measured = measuredGpus['h100']!.lessons.find((l) => l.id === lesson.id)!;
    expect(measuredLine(lesson, 'h100', params, sim, ms)).toBe(
      `On an H100 this measured ${ms(spread(measured.before.makespansNs).median)} before and ` +
        `${ms(spread(measured.after.makespansNs).median)} after (median of 36 runs); ` +
        'simulated 17.90 ms and 2.54 ms.',
    );
    // a measure of its own: the speedup is of it, so the line says it too; none without it
    const priorities = lessons.find((l) => l.id === 'stream-priorities')!;
    const urgent = measuredGpus['h200']!.lessons.find((l) => l.id === priorities.id)!;
    const us = (ns: number): string => `${(ns / 1e3).toFixed(1)} us`;
    const simPair = { ...sim, measureBeforeNs: 293_200, measureAfterNs: 94_610 };
    expect(measuredLine(priorities, 'h200', lessonDefaults(priorities), simPair, us)).toBe(
      `On an H200 this measured ${us(spread(urgent.before.makespansNs).median)} before and ` +
        `${us(spread(urgent.after.makespansNs).median)} after (median of 5 runs); ` +
        'simulated 17900.0 us and 2540.0 us. Its urgent-kernel latency: measured ' +
        `${us(spread(urgent.before.measuresNs).median)} before and ` +
        `${us(spread(urgent.after.measuresNs).median)} after; simulated 293.2 us and 94.6 us.`,
    );
    expect(measuredLine(lesson, 'h100', params, simPair, ms)).toBe(
      measuredLine(lesson, 'h100', params, sim, ms),
    );
    expect(measuredLine(lesson, 'k20c', params, sim, ms)).toBeNull();
    expect(measuredLine(lesson, 'h100', { ...params, chunks: 8 }, sim, ms)).toBeNull();
  });
});

describe('several measured runs of a pair', () => {
  it('count as the median of each side and of the speedups, so one slow run does not reverse it', () => {
    const run = (beforeNs: number, afterNs: number) => ({
      before: { makespanNs: beforeNs },
      after: { makespanNs: afterNs },
      speedup: beforeNs / afterNs,
    });
    // the H100's one 0.668 ms after run that once reversed issue-order-two-engines
    const pair = medianPair([run(488_000, 490_000), run(489_000, 668_000), run(490_000, 487_000)]);
    expect(pair.beforeNs).toBe(489_000);
    expect(pair.afterNs).toBe(490_000);
    expect(pair.speedup).toBeCloseTo(488_000 / 490_000, 6);
    expect(medianPair([run(4, 2), run(6, 2)])).toEqual({ beforeNs: 5, afterNs: 2, speedup: 2.5 });
  });
});

describe('a measurement rebuilt from kept runs', () => {
  const meta = { device: 'NVIDIA H100 80GB HBM3', driver: '580', date: '2026-11-25' };
  // cuda-graphs kept whole; stream-count lacks its last after run; nothing else kept
  const runOf = (id: string, side: 'before' | 'after', rep: number) =>
    id === 'cuda-graphs' || (id === 'stream-count' && (side === 'before' || rep < 2))
      ? { makespanNs: (side === 'before' ? 3e6 : 1e6) + rep, measureNs: 7 + rep }
      : undefined;

  it('keeps the lessons with every run of both sides, in order, and says why others are out', () => {
    const { measurement, leftOut } = measurementFromRuns(lessons, meta, 3, runOf);
    expect(measurement).toEqual({
      ...meta,
      reps: 3,
      lessons: [
        {
          id: 'cuda-graphs',
          before: { makespansNs: [3e6, 3e6 + 1, 3e6 + 2], measuresNs: [7, 8, 9] },
          after: { makespansNs: [1e6, 1e6 + 1, 1e6 + 2], measuresNs: [7, 8, 9] },
        },
      ],
    });
    expect(leftOut).toContain('stream-count: fewer than 3 runs of each side');
    expect(leftOut).toContain('ddp-overlap: needs 2 GPUs (the fidelity run has one)');
    expect(leftOut).toHaveLength(lessons.length - 1);
  });

  it('is an error when no lesson has its runs', () => {
    expect(() => measurementFromRuns(lessons, meta, 5, () => undefined)).toThrow(
      /no lesson has 5 runs of both sides \(chunked-pipeline: fewer than 5 runs/,
    );
  });
});
