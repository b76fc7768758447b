import { describe, expect, it } from 'vitest';
import { parseEditorJson, placeErrors } from './workload-errors.ts';

describe('workload editor errors', () => {
  it('places a JSON syntax error on its line', () => {
    const result = parseEditorJson('{\n  "a": 1,\n  "b": oops\n}');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.place.line).toBe(3);
    }
  });

  it('sorts validation errors by where they are in the text', () => {
    const text = '{\n  "a": 1,\n  "b": [2, 3]\n}';
    const placed = placeErrors(text, [
      { path: '/b/1', message: 'too big' },
      { path: '/a', message: 'too small' },
    ]);
    expect(placed.map((e) => [e.message, e.place.line, e.place.column])).toEqual([
      ['too small', 2, 8],
      ['too big', 3, 12],
    ]);
  });
});
