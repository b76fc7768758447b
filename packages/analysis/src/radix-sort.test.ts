import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortFloat64 } from './radix-sort.ts';

describe('sortFloat64', () => {
  it('sorts like the native sort, negatives and subarrays included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e15, max: 1e15 }), {
          minLength: 4096,
          maxLength: 6000,
        }),
        fc.nat(7),
        (values, offset) => {
          const backing = new Float64Array(values.length + offset);
          backing.set(values, offset);
          const view = backing.subarray(offset);
          const expected = Float64Array.from(values).sort();
          expect(Array.from(sortFloat64(view))).toEqual(Array.from(expected));
        },
      ),
      { numRuns: 20 },
    );
  });

  it('sorts integer ns values that share their high bits', () => {
    // 5000 values in [1e9, 1e9 + 5000): the top 16-bit digit is shared and its pass is skipped.
    const values = Float64Array.from({ length: 5000 }, (_, k) => 1e9 + ((k * 7919) % 5000));
    sortFloat64(values);
    expect(values.every((v, k) => k === 0 || values[k - 1]! <= v)).toBe(true);
    expect(values[0]).toBe(1e9);
    expect(values[4999]).toBe(1e9 + 4999);
  });
});
