import { describe, expect, it } from 'vitest';
import { IdNumberMap } from './id-number-map.ts';

describe('IdNumberMap', () => {
  it('holds more entries than a JS Map can (2^24) and sums into each', () => {
    // The analysis of a 176M-op trace charged device idle time to more than 2^24 ops: a Map
    // threw "Map maximum size exceeded" there.
    const n = 2 ** 24 + 1000;
    const map = new IdNumberMap();
    for (let op = 0; op < n; op++) {
      map.add(op * 3, 1);
    }
    for (let op = 0; op < n; op += 2) {
      map.add(op * 3, 0.5);
    }
    expect(map.size).toBe(n);
    let wrong = 0;
    for (let op = 0; op < n; op++) {
      if (map.get(op * 3) !== (op % 2 === 0 ? 1.5 : 1)) {
        wrong++;
      }
    }
    expect(wrong).toBe(0);
    expect(map.get(1)).toBeUndefined();
    expect(map.has(3 * (n - 1))).toBe(true);
    expect(map.has(3 * n)).toBe(false);
  }, 120_000);

  it('keeps every value set as it grows from its smallest size', () => {
    const map = new IdNumberMap();
    for (let id = 0; id < 10_000; id++) {
      map.set(id * 7, id + 0.25);
    }
    let wrong = 0;
    for (let id = 0; id < 10_000; id++) {
      if (map.get(id * 7) !== id + 0.25) {
        wrong++;
      }
    }
    expect(wrong).toBe(0);
  });

  it('iterates its ids in the order they were first set, as a Map does', () => {
    const map = new IdNumberMap();
    const ids = [70, 3, 2 ** 53 - 1, 0, 1e12, 3];
    ids.forEach((id, i) => map.set(id, i));
    map.add(70, 10);
    expect(map.keyArray()).toEqual([70, 3, 2 ** 53 - 1, 0, 1e12]);
    expect([...map.keysInOrder()]).toEqual(map.keyArray());
    expect(map.get(3)).toBe(5);
    expect(map.get(70)).toBe(10);
    expect(map.size).toBe(5);
  });

  it('refuses an id that is not an integer in [0, 2^53)', () => {
    const map = new IdNumberMap();
    for (const id of [-1, 0.5, 2 ** 53, Number.NaN]) {
      expect(() => map.set(id, 1)).toThrow(/is not an integer in \[0, 2\^53\)/);
    }
    expect(map.size).toBe(0);
  });

  it('holds no negative id: -1 (no op, as gap causes say it) is never found', () => {
    const map = new IdNumberMap();
    expect(map.has(-1)).toBe(false);
    map.set(5, 1);
    expect(map.has(-1)).toBe(false);
    expect(map.get(-1)).toBeUndefined();
    expect(map.get(-0.5)).toBeUndefined();
  });
});
