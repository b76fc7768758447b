import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestRoot } from '../lib/react-root.test-helper.ts';
import { mountTestRoot } from '../lib/react-root.test-helper.ts';
import { FakeLessonWorker } from './fake-lesson-worker.test-helper.ts';
import { LessonControls } from './LessonControls.tsx';
import { LessonFindings } from './LessonFindings.tsx';
import { LessonSpeedup } from './LessonSpeedup.tsx';
import { findLesson } from './lesson-catalogue.ts';
import { closeLesson, openLesson, setLessonRunnerFactory } from './lesson-controller.ts';
import { createWorkerLessonRunner } from './lesson-runner.ts';
import { initialLessonState, lessonStore } from './lesson-store.ts';
import type { Lesson } from './lesson-types.ts';

let t: TestRoot;

function lessonOf(id: string): Lesson {
  const lesson = findLesson(id);
  if (lesson === undefined) {
    throw new Error(`no lesson ${id}`);
  }
  return lesson;
}

function byTestId<T extends Element>(id: string): T {
  const found = t.container.querySelector<T>(`[data-testid="${id}"]`);
  if (found === null) {
    throw new Error(`nothing with data-testid ${id}`);
  }
  return found;
}

/** Waits for the pair the last action started (the fake worker answers on a later task). */
async function settle(): Promise<void> {
  await act(async () => {
    for (let i = 0; i < 50 && lessonStore.getState().status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  });
}

describe('the lesson controls and results', () => {
  beforeEach(() => {
    lessonStore.setState(initialLessonState(), true);
    setLessonRunnerFactory(() => createWorkerLessonRunner(new FakeLessonWorker().asWorker()));
    t = mountTestRoot();
  });
  afterEach(() => {
    t.unmount();
    closeLesson();
  });

  it('flips the pitfall from the toggle and shows the speedup fall to 1', async () => {
    const lesson = lessonOf('pinned-vs-pageable');
    await act(() => openLesson(lesson.id));
    act(() =>
      t.root.render(
        <>
          <LessonControls lesson={lesson} gpuAvailable={false} />
          <LessonSpeedup />
        </>,
      ),
    );
    const toggle = byTestId<HTMLInputElement>('lesson-pitfall-toggle');
    expect(toggle.checked).toBe(false);
    expect(document.querySelector('[data-testid="lesson-pitfall-hint"]')).toBeNull();
    const fixed = Number(byTestId('lesson-speedup').getAttribute('data-speedup'));
    expect(fixed).toBeGreaterThan(1.1);
    // at the lesson's settings on the h100 profile: what an H100 measured beside the simulation
    expect(byTestId('lesson-measured').textContent).toMatch(
      /^On an H100 this measured .+ before and .+ after \(median of 36 runs\); simulated .+ and .+\.$/,
    );

    act(() => toggle.click());
    await settle();
    expect(lessonStore.getState().params['hostMemory']).toBe('pageable');
    expect(byTestId<HTMLInputElement>('lesson-pitfall-toggle').checked).toBe(true);
    expect(byTestId('lesson-speedup').getAttribute('data-speedup')).toBe('1');
    // The 1.00× is explained, with what to do next.
    expect(byTestId('lesson-pitfall-hint').textContent).toContain('Untick to run the after run');
    // other settings than those measured: no measured line
    expect(t.container.querySelector('[data-testid="lesson-measured"]')).toBeNull();
  });

  it('shows one control per slider, sizes on a power-of-two range, and the lesson profiles first', async () => {
    const lesson = lessonOf('chunked-pipeline');
    await act(() => openLesson(lesson.id));
    act(() => t.root.render(<LessonControls lesson={lesson} gpuAvailable={false} />));
    for (const name of lesson.sliders) {
      expect(byTestId<HTMLInputElement>(`lesson-param-${name}`).type).toBe('range');
    }
    const size = byTestId<HTMLInputElement>('lesson-param-size');
    // 64 MiB = 2^26 bytes.
    expect(size.value).toBe('26');
    expect(byTestId('lesson-param-size-value').textContent).toBe('64 MiB');
    const profiles = [...byTestId<HTMLSelectElement>('lesson-profile').options].map((o) => o.value);
    expect(profiles.slice(0, Object.keys(lesson.effects).length)).toEqual([
      'h100',
      'h200',
      'c2050',
      'k20c',
      'c1060',
    ]);
    const gpu = [...byTestId<HTMLSelectElement>('lesson-backend').options].find(
      (o) => o.value === 'cuda',
    );
    expect(gpu?.disabled).toBe(true);
  });

  it('marks a finding active when clicked and highlights its ops', async () => {
    await act(() => openLesson('legacy-vs-non-blocking'));
    act(() => t.root.render(<LessonFindings />));
    const buttons = t.container.querySelectorAll<HTMLButtonElement>(
      '[data-testid="lesson-finding"]',
    );
    expect(buttons.length).toBe(lessonStore.getState().summary?.findings.length);
    const first = buttons[0];
    expect(first?.getAttribute('aria-pressed')).toBe('false');
    act(() => first?.click());
    expect(first?.getAttribute('aria-pressed')).toBe('true');
    const highlight = lessonStore.getState().highlight;
    expect(highlight?.key).toBe(first?.getAttribute('data-key'));
    expect(highlight?.opIndices.length).toBe(Number(first?.getAttribute('data-ops')));
  });
});
