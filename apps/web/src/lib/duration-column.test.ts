import { describe, expect, it } from 'vitest';
import { durationColumn, formatInColumn } from './duration-column.ts';

describe('durationColumn', () => {
  it('takes the largest unit the maximum reaches, with 4 significant digits for it', () => {
    // 33,304,293 ns = 33.30 ms: two integer digits leave two decimals.
    expect(durationColumn(33_304_293)).toEqual({ unit: 'ms', unitNs: 1e6, decimals: 2 });
    // 500 µs: three integer digits leave one.
    expect(durationColumn(500_000)).toEqual({ unit: 'µs', unitNs: 1e3, decimals: 1 });
    expect(durationColumn(1_500_000_000)).toEqual({ unit: 's', unitNs: 1e9, decimals: 3 });
    // Past 9,999 s no decimal is left, and none goes negative.
    expect(durationColumn(12_345e9)).toEqual({ unit: 's', unitNs: 1e9, decimals: 0 });
    expect(durationColumn(850)).toEqual({ unit: 'ns', unitNs: 1, decimals: 0 });
    expect(durationColumn(0)).toEqual({ unit: 'ns', unitNs: 1, decimals: 0 });
  });
});

describe('formatInColumn', () => {
  const ms = durationColumn(33_304_293);

  it('writes every value with the same decimals, so a column lines up', () => {
    expect(formatInColumn(33_304_293, ms)).toBe('33.30');
    expect(formatInColumn(9_862_568, ms)).toBe('9.86');
    expect(formatInColumn(256_476, ms)).toBe('0.26');
    expect(formatInColumn(0, ms)).toBe('0.00');
  });

  it('says a duration too short for the column is below its smallest step, not zero', () => {
    // 4.9 µs is 0.0049 ms: "0.00" would read as no time at all.
    expect(formatInColumn(4_900, ms)).toBe('<0.01');
    expect(formatInColumn(6_000, ms)).toBe('0.01');
    expect(formatInColumn(0.4, durationColumn(850))).toBe('<1');
  });
});
