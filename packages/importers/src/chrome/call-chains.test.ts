import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CallChains } from './call-chains.ts';

/** The calls of each id in the order given, as a Map of arrays would keep them. */
function reference(ids: readonly number[]): Map<number, number[]> {
  const calls = new Map<number, number[]>();
  ids.forEach((id, i) => calls.set(id, [...(calls.get(id) ?? []), i]));
  return calls;
}

function chainsOf(chains: CallChains, ids: readonly number[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const id of new Set(ids)) {
    const calls: number[] = [];
    for (let a = chains.first(id); a >= 0; a = chains.next[a]!) {
      calls.push(a);
    }
    out.set(id, calls);
  }
  return out;
}

describe('API calls by correlation id', () => {
  it('chains the calls of each id in order, with repeated ids and with ids up to 2^32 - 1', () => {
    const dense = fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 400 });
    const sparse = fc.array(
      fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 2 ** 20, max: 2 ** 32 - 1 })),
      { maxLength: 400 },
    );
    fc.assert(
      fc.property(fc.oneof(dense, sparse), (ids) => {
        const chains = new CallChains(Uint32Array.from(ids), ids.length);
        expect(chainsOf(chains, ids)).toEqual(reference(ids));
        expect(chains.first(7_000_000)).toBe(-1);
        expect(chains.first(2 ** 32 + 5)).toBe(-1);
      }),
      { numRuns: 500 },
    );
  });

  it('reads only the first `count` ids of a staging column with room to spare', () => {
    const ids = Uint32Array.from([5, 9, 5, 0, 0, 0]);
    const chains = new CallChains(ids, 3);
    expect([chains.first(5), chains.next[0], chains.next[2]]).toEqual([0, 2, -1]);
    expect(chains.first(0)).toBe(-1);
  });
});
