import { describe, expect, it } from 'vitest';
import {
  countChange,
  durationColumns,
  plural,
  pointChange,
  relativeChange,
} from './compare-format.ts';

describe('relativeChange', () => {
  it('is a percentage for ordinary changes', () => {
    expect(relativeChange(400, 200)).toEqual({ text: '-50.0%' });
    expect(relativeChange(1000, 1125)).toEqual({ text: '+12.5%' });
    expect(relativeChange(5, 5)).toEqual({ text: '±0%' });
  });

  it('is a ratio with a reason against a tiny baseline (0.001 ms → 1 ms, not +99,900%)', () => {
    const change = relativeChange(1_000, 1_000_000);
    expect(change.text).toBe('1,000× A');
    expect(change.reason).toMatch(/A is tiny.*\+99,900%/);
    // "+46137.1%" reads as 462 times A.
    expect(relativeChange(1_000, 462_371).text).toBe('462× A');
  });

  it('is a ratio when B is under a tenth of A', () => {
    expect(relativeChange(1_000_000, 50_000).text).toBe('0.0500× A');
  });

  it('is n/a with a reason when A is 0', () => {
    expect(relativeChange(0, 10)).toEqual({
      text: 'n/a',
      reason: 'A is 0: no relative change exists',
    });
  });
});

describe('point and count changes', () => {
  it('print signed points and counts', () => {
    expect(pointChange(0.25, 0.75).text).toBe('+50.0 pt');
    expect(countChange(3, 1).text).toBe('-2');
    expect(countChange(2, 2).text).toBe('±0');
  });
});

describe('durationColumns', () => {
  it('puts both sides in one unit with the same decimals, so they align', () => {
    expect(durationColumns(400_000, 2_000_000)).toEqual({ unit: 'ms', a: '0.400', b: '2.000' });
    expect(durationColumns(1_000, 50)).toEqual({ unit: 'µs', a: '1.000', b: '0.050' });
    expect(durationColumns(12, 0)).toEqual({ unit: 'ns', a: '12', b: '0' });
  });
});

describe('plural', () => {
  it('says 1 chunk and 2 chunks', () => {
    expect(plural(1, 'chunk')).toBe('1 chunk');
    expect(plural(2, 'chunk')).toBe('2 chunks');
  });
});
