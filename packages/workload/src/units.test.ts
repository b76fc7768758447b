import { describe, expect, it } from 'vitest';
import { evaluate } from './expr.ts';
import { parseDuration, parseSize } from './units.ts';

describe('parseSize', () => {
  it('reads binary and decimal units and bare bytes', () => {
    expect(parseSize('64MiB')).toBe(64 * 1024 * 1024);
    expect(parseSize('1.5 KB')).toBe(1500);
    expect(parseSize('4096')).toBe(4096);
  });

  it('rejects unknown units and fractions of a byte with the reason', () => {
    expect(() => parseSize('4XB')).toThrow(/unknown size unit "XB"/);
    expect(() => parseSize('1.5B')).toThrow(/not a whole number of bytes/);
    expect(() => parseSize('-4MiB')).toThrow(/is not a size/);
  });
});

describe('parseDuration', () => {
  it('converts to whole ns', () => {
    expect(parseDuration('50us')).toBe(50_000);
    expect(parseDuration('1.5ms')).toBe(1_500_000);
    expect(parseDuration('2s')).toBe(2e9);
  });

  it('names a bad unit', () => {
    expect(() => parseDuration('5MiB')).toThrow(/unknown duration unit "MiB"/);
  });
});

describe('evaluate', () => {
  it('computes offsets from loop variables with units', () => {
    // i = 3: 3 × 4 MiB = 12 MiB
    expect(evaluate('i * 4MiB', new Map([['i', 3]]))).toEqual({
      value: 12 * 1024 ** 2,
      dim: 'size',
    });
    expect(evaluate('(i + 1) * 10us', new Map([['i', 1]]))).toEqual({ value: 20_000, dim: 'time' });
    expect(evaluate('16MiB / 4MiB', new Map()).value).toBe(4);
  });

  it('refuses to mix sizes and durations', () => {
    expect(() => evaluate('4MiB + 1ms', new Map())).toThrow(/cannot combine a size and a time/);
    expect(() => evaluate('j * 2', new Map([['i', 0]]))).toThrow(
      /unknown variable "j".*in scope: i/,
    );
  });
});
