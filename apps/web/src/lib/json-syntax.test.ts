import { describe, expect, it } from 'vitest';
import { jsonSyntaxErrorOffset } from './json-syntax.ts';

describe('jsonSyntaxErrorOffset', () => {
  it('accepts valid JSON', () => {
    expect(jsonSyntaxErrorOffset('{"a": [1, -2.5e3, true, null, "x\\n\\u00e9"]}')).toBe(-1);
  });

  it('points at the first character that cannot continue the value', () => {
    // `{"a": oops}`: the value starts at offset 6 with "o", which no JSON value begins with.
    expect(jsonSyntaxErrorOffset('{"a": oops}')).toBe(6);
    // A trailing comma: after "1," the parser expects a key at offset 9 and finds "}".
    expect(jsonSyntaxErrorOffset('{"a": 1, }')).toBe(9);
  });

  it('reports text after the value and an unterminated string', () => {
    expect(jsonSyntaxErrorOffset('{} x')).toBe(3);
    expect(jsonSyntaxErrorOffset('"abc')).toBe(4);
  });
});
