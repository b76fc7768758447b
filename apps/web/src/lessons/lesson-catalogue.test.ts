import { deviceProfiles } from '@streamscope/simulator';
import type { PresetParam } from '@streamscope/workload';
import { buildPreset, presets } from '@streamscope/workload';
import { describe, expect, it } from 'vitest';
import { findLesson, lessons } from './lesson-catalogue.ts';
import type { ParamValue } from './lesson-types.ts';
import { effectOfSpeedup, lessonProfiles } from './lesson-types.ts';
import { afterParams, beforeParams, lessonDefaults } from './run-lesson-pair.ts';

function acceptable(param: PresetParam, value: ParamValue): boolean {
  switch (param.type) {
    case 'bool':
      return typeof value === 'boolean';
    case 'enum':
      return typeof value === 'string' && (param.options ?? []).includes(value);
    case 'int':
    case 'number':
    case 'size':
      return (
        typeof value === 'number' &&
        (param.min === undefined || value >= param.min) &&
        (param.max === undefined || value <= param.max) &&
        (param.type !== 'int' || Number.isInteger(value))
      );
  }
}

describe('the lesson catalogue', () => {
  it('has at least ten lessons with unique, URL-safe ids', () => {
    expect(lessons.length).toBeGreaterThanOrEqual(10);
    const ids = lessons.map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z0-9-]+$/);
      expect(findLesson(id)?.id).toBe(id);
    }
    expect(findLesson('no-such-lesson')).toBeUndefined();
  });

  it('covers every preset the workload package offers', () => {
    const used = new Set(lessons.map((l) => l.preset));
    expect([...presets.map((p) => p.name)].filter((name) => !used.has(name))).toEqual([]);
  });

  it.each(lessons.map((l) => [l.id, l] as const))(
    '%s switches its preset’s pitfall parameter between two valid values',
    (_id, lesson) => {
      const preset = presets.find((p) => p.name === lesson.preset);
      expect(preset, `preset ${lesson.preset}`).toBeDefined();
      const param = preset?.params.find((p) => p.name === lesson.pitfall.param);
      expect(param, `parameter ${lesson.pitfall.param}`).toBeDefined();
      expect(lesson.pitfall.param).toBe(preset?.pitfallParam);
      if (param !== undefined) {
        expect(acceptable(param, lesson.pitfall.onValue)).toBe(true);
        expect(acceptable(param, lesson.pitfall.offValue)).toBe(true);
      }
      expect(lesson.pitfall.onValue).not.toBe(lesson.pitfall.offValue);
    },
  );

  it.each(lessons.map((l) => [l.id, l] as const))(
    '%s names sliders and profiles that exist, and opens with the pitfall fixed',
    (_id, lesson) => {
      const preset = presets.find((p) => p.name === lesson.preset);
      for (const slider of lesson.sliders) {
        expect(preset?.params.map((p) => p.name)).toContain(slider);
      }
      const profileNames = Object.keys(deviceProfiles);
      expect(profileNames).toContain(lesson.defaultProfile);
      expect(Object.keys(lesson.effects)).toContain(lesson.defaultProfile);
      for (const profile of lessonProfiles(lesson)) {
        expect(profileNames).toContain(profile);
      }
      const defaults = lessonDefaults(lesson);
      expect(defaults[lesson.pitfall.param]).toBe(lesson.pitfall.offValue);
      expect(beforeParams(lesson, defaults)[lesson.pitfall.param]).toBe(lesson.pitfall.onValue);
      expect(afterParams(lesson, defaults)[lesson.pitfall.param]).toBe(lesson.pitfall.offValue);
      // Both runs' parameters are accepted by the preset.
      expect(() => buildPreset(lesson.preset, beforeParams(lesson, defaults))).not.toThrow();
      expect(() => buildPreset(lesson.preset, afterParams(lesson, defaults))).not.toThrow();
      expect(lesson.explanation.length).toBeGreaterThan(0);
    },
  );
});

describe('the DDP overlap lesson', () => {
  it('runs on two GPUs, slides the bucket size and shows the comm–compute overlap figure', () => {
    const lesson = findLesson('ddp-overlap')!;
    expect(lesson.preset).toBe('ddp-bucketing');
    expect(lesson.sliders[0]).toBe('bucketMiB');
    expect(lesson.figure).toBe('commCompute');
    expect(lessonDefaults(lesson)['devices']).toBe(lesson.gpus);
  });
});

describe('effectOfSpeedup', () => {
  it('calls speedups within 10% of 1 the same and the rest faster or slower', () => {
    expect(effectOfSpeedup(1)).toBe('same');
    expect(effectOfSpeedup(1.09)).toBe('same');
    expect(effectOfSpeedup(0.91)).toBe('same');
    expect(effectOfSpeedup(1.2)).toBe('faster');
    expect(effectOfSpeedup(0.8)).toBe('slower');
  });
});
