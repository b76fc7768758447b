import { describe, expect, it } from 'vitest';
import { CorrelationIndex } from './correlation-index.ts';

const api = 9;

describe('CorrelationIndex over sparse ids', () => {
  it('finds ids given out of order, ties going to the later op, and nothing between them', () => {
    // Process 3 holds 6 calls with ids up to 900_000: sparse (900k slots for 6 ops), so they are
    // found by binary search over the ops sorted by id. Op 5 repeats id 700 after op 1: it wins.
    const corr = new Uint32Array([900_000, 700, 5, 12, 99_999, 700, 41]);
    const procs = new Uint32Array([3, 3, 3, 3, 3, 3, 3]);
    const kinds = new Uint8Array([api, api, api, api, api, api, 1]);
    const index = new CorrelationIndex((op) => procs[op]!, corr, kinds, api, 7);
    expect(index.get(3, 900_000)).toBe(0);
    expect(index.get(3, 700)).toBe(5);
    expect(index.get(3, 5)).toBe(2);
    expect(index.get(3, 12)).toBe(3);
    expect(index.get(3, 99_999)).toBe(4);
    // Op 6 is not an API call; 6, 0 and ids past the largest are absent.
    expect(index.get(3, 41)).toBe(-1);
    expect(index.get(3, 6)).toBe(-1);
    expect(index.get(3, 4)).toBe(-1);
    expect(index.get(3, 900_001)).toBe(-1);
    expect(index.hasProcess(3)).toBe(true);
    expect(index.hasProcess(0)).toBe(false);
  });

  it('keeps a dense table and a sorted run apart when processes mix', () => {
    // Process 0: ids 1..4 (dense); process 1: ids 10^6 apart (sparse), given descending.
    const corr = new Uint32Array([3_000_000, 1, 2_000_000, 2, 1_000_000, 3, 4]);
    const procs = new Uint32Array([1, 0, 1, 0, 1, 0, 0]);
    const kinds = new Uint8Array(7).fill(api);
    const index = new CorrelationIndex((op) => procs[op]!, corr, kinds, api, 7);
    expect([1, 2, 3, 4].map((id) => index.get(0, id))).toEqual([1, 3, 5, 6]);
    expect([1e6, 2e6, 3e6].map((id) => index.get(1, id))).toEqual([4, 2, 0]);
    expect(index.get(0, 1e6)).toBe(-1);
    expect(index.get(1, 1)).toBe(-1);
  });
});

describe('CorrelationIndex lookups in any order', () => {
  it('answers rising, falling and random lookups of a sparse run like a scan of the ops', () => {
    // 3000 API calls of process 2 with ids 0..3·10^6 (sparse), some repeated; every 5th op is a
    // kernel. The answer to (2, id) is the last API op with that id, found by a plain scan.
    let seed = 7;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 4294967296;
    };
    const n = 3000;
    const corr = new Uint32Array(n);
    const kinds = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      corr[i] =
        i > 0 && next() < 0.1 ? corr[Math.floor(next() * i)]! : 1 + Math.floor(next() * 3e6);
      kinds[i] = i % 5 === 0 ? 1 : api;
    }
    const index = new CorrelationIndex(() => 2, corr, kinds, api, n);
    const scan = (id: number): number => {
      let found = -1;
      for (let i = 0; i < n; i++) {
        if (kinds[i] === api && corr[i] === id) {
          found = i;
        }
      }
      return found;
    };
    const present = [...corr].sort((a, b) => a - b);
    const queries = [
      ...present, // rising, each present
      ...present.map((id) => id + 1), // rising, mostly absent
      ...[...present].reverse(), // falling
      ...Array.from({ length: 2000 }, () =>
        next() < 0.5 ? present[Math.floor(next() * n)]! : Math.floor(next() * 3.1e6),
      ), // random
      0,
      4e6,
    ];
    const wrong = queries.filter((id) => index.get(2, id) !== scan(id));
    expect(wrong).toEqual([]);
  });
});
