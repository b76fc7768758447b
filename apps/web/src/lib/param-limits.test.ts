import { describe, expect, it } from 'vitest';
import type { PresetParam } from '../api/types.ts';
import { formatBytesHuman, paramProblem, paramRange, presetProblems } from './param-limits.ts';

const size: PresetParam = {
  name: 'size',
  type: 'size',
  default: '64MiB',
  min: 4096,
  max: 8 * 1024 ** 3,
  options: [],
  description: '',
};
const chunks: PresetParam = {
  name: 'chunks',
  type: 'int',
  default: 8,
  min: 1,
  max: 256,
  options: [],
  description: '',
};
const kernelUs: PresetParam = {
  name: 'kernelUs',
  type: 'number',
  default: 2000,
  min: 1,
  max: 1e6,
  options: [],
  description: '',
};

describe('preset parameter limits in the form', () => {
  it('says sizes and durations in human units', () => {
    expect(formatBytesHuman(8 * 1024 ** 3)).toBe('8 GiB');
    expect(formatBytesHuman(4096)).toBe('4 KiB');
    expect(paramProblem(size, '9GiB')).toBe('at most 8 GiB');
    expect(paramProblem(size, '1KiB')).toBe('at least 4 KiB');
    expect(paramProblem(kernelUs, 2e6)).toBe('at most 1 s');
    expect(paramRange(size)).toBe('4 KiB – 8 GiB');
    expect(paramRange(kernelUs)).toBe('1 µs – 1 s');
  });

  it('accepts values inside the limits and names what is wrong otherwise', () => {
    expect(paramProblem(size, '64MiB')).toBeUndefined();
    expect(paramProblem(size, 'lots')).toMatch(/lots/);
    expect(paramProblem(chunks, 8)).toBeUndefined();
    expect(paramProblem(chunks, 2.5)).toBe('a whole number is needed');
    expect(paramProblem(chunks, undefined)).toBe('a number is needed');
    expect(paramProblem(chunks, 300)).toBe('at most 256');
  });

  it('lists every problem at once', () => {
    const preset = { name: 'p', title: 'P', description: '', params: [size, chunks, kernelUs] };
    expect(presetProblems(preset, { size: '9GiB', chunks: 0, kernelUs: 10 })).toEqual({
      size: 'at most 8 GiB',
      chunks: 'at least 1',
    });
    expect(presetProblems(preset, {})).toEqual({});
  });
});
