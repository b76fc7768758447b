import { describe, expect, it } from 'vitest';
import { CorrelationIndex } from './correlation-index.ts';
import { IdHashMap } from './id-hash-map.ts';

/** The i-th of n distinct sparse ids below 2^53: a random high part over a permutation of i. */
function sparseIds(n: number, seed: number): Float64Array {
  const ids = new Float64Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const hi = (x >>> 0) & 0x1fffff; // 21 bits: ids up to 2^53 - 1
    const lo = Math.imul(i, 0x9e3779b1) >>> 0; // distinct for every i < 2^32
    ids[i] = hi * 4294967296 + lo;
  }
  return ids;
}

describe('IdHashMap', () => {
  it('holds 20 million sparse 53-bit ids and reads every one back', () => {
    // A JS Map throws "Map maximum size exceeded" at 2^24 (16.7M) entries.
    const n = 20_000_000;
    const ids = sparseIds(n, 0x2545f491);
    const map = new IdHashMap(n);
    for (let i = 0; i < n; i++) {
      map.set(ids[i]!, i);
    }
    expect(map.size).toBe(n);
    let wrong = 0;
    for (let i = 0; i < n; i++) {
      if (map.get(ids[i]!) !== i) {
        wrong++;
      }
    }
    expect(wrong).toBe(0);
    expect(map.get(2 ** 53 - 1)).toBe(-1);
  }, 120_000);

  it('grows from its smallest size without losing or confusing ids', () => {
    const n = 1_000_000;
    const ids = sparseIds(n, 12345);
    const map = new IdHashMap();
    for (let i = 0; i < n; i++) {
      map.set(ids[i]!, i);
    }
    map.set(ids[7]!, -5); // overwrite
    expect(map.size).toBe(n);
    expect(map.get(ids[7]!)).toBe(-5);
    expect(map.get(ids[n - 1]!)).toBe(n - 1);
    expect(map.get(0)).toBe(ids.includes(0) ? ids.indexOf(0) : -1);
    expect(() => map.set(-1, 0)).toThrow(RangeError);
    expect(() => map.set(2 ** 53, 0)).toThrow(RangeError);
  });
});

describe('CorrelationIndex', () => {
  it('finds calls by (process, id) when ids are sparse in one process and dense in another', () => {
    // Process 0: ids near 4e9 (sparse: no dense table of 4e9 entries); process 1: 1..3.
    const corr = new Uint32Array([4_000_000_000, 5, 3_999_999_999, 1, 2, 3]);
    const procs = new Uint32Array([0, 0, 0, 1, 1, 1]);
    const kinds = new Uint8Array(6).fill(9);
    const index = new CorrelationIndex((op) => procs[op]!, corr, kinds, 9, 6);
    expect(index.get(0, 4_000_000_000)).toBe(0);
    expect(index.get(0, 5)).toBe(1);
    expect(index.get(0, 3_999_999_999)).toBe(2);
    expect(index.get(1, 2)).toBe(4);
    expect(index.get(1, 4_000_000_000)).toBe(-1);
    expect(index.get(0, 1)).toBe(-1);
    expect(index.hasProcess(1)).toBe(true);
    expect(index.hasProcess(2)).toBe(false);
  });
});

describe('IdHashMap.putIfAbsent', () => {
  it('keeps the first value of an id, gives it back, and sets only ids it has not seen', () => {
    const map = new IdHashMap();
    // 5000 ids (past several growths), each put twice: the first put sets, the second finds it.
    for (let i = 0; i < 5000; i++) {
      expect(map.putIfAbsent(i * 7919, i)).toBe(-1);
    }
    for (let i = 0; i < 5000; i++) {
      expect(map.putIfAbsent(i * 7919, i + 1)).toBe(i);
    }
    expect(map.size).toBe(5000);
    expect(map.get(4999 * 7919)).toBe(4999);
    expect(map.putIfAbsent(2 ** 53 - 1, 3)).toBe(-1);
    expect(map.get(2 ** 53 - 1)).toBe(3);
    expect(() => map.putIfAbsent(-1, 0)).toThrow(RangeError);
  });
});
