import { describe, expect, it } from 'vitest';
import { sampleTrace } from './sample-trace.test-helper.ts';
import { searchCountLabel, searchTrace, windowMatches } from './search.ts';

/** Substring matches; a failed search gives [99], which no expectation accepts. */
function searchOps(trace: ReturnType<typeof sampleTrace>, query: string): Uint32Array {
  const outcome = searchTrace(trace, query);
  return outcome.ok ? outcome.ops : new Uint32Array([99]);
}

describe('searchOps', () => {
  it('finds names case-insensitively across all tracks, ordered by start', () => {
    const trace = sampleTrace();
    // gemm at 100 (op 1), gemm at 300 (op 2), GEMM_big at 400 (op 4)
    expect([...searchOps(trace, 'gemm')]).toEqual([1, 2, 4]);
  });

  it('returns nothing for a blank query or a name that is absent', () => {
    const trace = sampleTrace();
    expect(searchOps(trace, '  ').length).toBe(0);
    expect(searchOps(trace, 'softmax').length).toBe(0);
  });
});

describe('searchTrace with a regular expression', () => {
  it('matches names by the expression, case-insensitively', () => {
    const trace = sampleTrace();
    // ^gemm$ keeps the two "gemm" ops (1, 2) and leaves out GEMM_big; r.lu finds relu (op 3).
    expect(searchTrace(trace, '^gemm$', true)).toEqual({ ok: true, ops: new Uint32Array([1, 2]) });
    expect(searchTrace(trace, 'r.lu|copy', true)).toEqual({
      ok: true,
      ops: new Uint32Array([0, 3]),
    });
  });

  it('reads regex characters literally when the toggle is off', () => {
    const trace = sampleTrace();
    expect(searchTrace(trace, '^gemm$', false)).toEqual({ ok: true, ops: new Uint32Array(0) });
  });

  it('reports an invalid expression instead of throwing', () => {
    const outcome = searchTrace(sampleTrace(), 'gemm(', true);
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.error).toMatch(/^not a regular expression: /);
  });
});

describe('searchCountLabel', () => {
  it('says k of N for the current match and how many before one is visited', () => {
    expect(searchCountLabel(2, 12)).toBe('3 of 12');
    expect(searchCountLabel(-1, 12)).toBe('12 matches');
    expect(searchCountLabel(-1, 1)).toBe('1 match');
    expect(searchCountLabel(-1, 0)).toBe('no matches');
  });
});

describe("windowMatches (a tiled view's window)", () => {
  it('searches a window once per query, again when the window grows or the query changes', () => {
    const trace = sampleTrace();
    const first = windowMatches(trace, 'gemm', false);
    expect([...first!]).toEqual([1, 2, 4]);
    // The same window and query: the same answer, not a new search.
    expect(windowMatches(trace, 'gemm', false)).toBe(first);
    // A flow's other end was added to the window: searched again, the new op found.
    trace.addOp({
      startNs: 900,
      endNs: 950,
      track: 0,
      kind: trace.ops.columns().kind[1]!,
      nameId: trace.strings.intern('gemm'),
    });
    const grown = windowMatches(trace, 'gemm', false);
    expect(grown).not.toBe(first);
    expect(grown!.length).toBe(4);
    expect([...windowMatches(trace, '^gemm$', true)!]).toEqual([1, 2, 5]);
    // Blank or invalid: nothing to mark.
    expect(windowMatches(trace, '(', true)).toBeUndefined();
    expect(windowMatches(trace, ' ', false)!.length).toBe(0);
  });
});
