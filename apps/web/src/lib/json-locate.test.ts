import { describe, expect, it } from 'vitest';
import { locateJsonPath, splitPath } from './json-locate.ts';

const text = `{
  "name": "demo",
  "streams": [
    { "ops": [{ "kind": "kernel" }] },
    { "ops": [{ "kind": "copy", "bytes": -4 }] }
  ]
}`;

describe('locateJsonPath', () => {
  it('finds a nested value by JSON pointer', () => {
    // Line 5 is `    { "ops": [{ "kind": "copy", "bytes": -4 }] }`; "bytes" spans columns 33-39, so -4 starts at 42.
    expect(locateJsonPath(text, '/streams/1/ops/0/bytes')).toMatchObject({ line: 5, column: 42 });
  });

  it('accepts dotted paths with indices', () => {
    expect(locateJsonPath(text, 'streams[1].ops[0].bytes')).toMatchObject({ line: 5, column: 42 });
  });

  it('stops at the deepest place it can reach for a missing member', () => {
    // /streams/0/ops/0 is `{ "kind": "kernel" }` on line 4, column 15.
    expect(locateJsonPath(text, '/streams/0/ops/0/bytes')).toMatchObject({ line: 4, column: 15 });
  });

  it('points at the start for the root path', () => {
    expect(locateJsonPath(text, '')).toMatchObject({ line: 1, column: 1 });
  });

  it('unescapes pointer segments', () => {
    expect(splitPath('/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
  });
});
