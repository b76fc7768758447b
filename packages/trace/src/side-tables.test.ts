import { describe, expect, it } from 'vitest';
import type { LaunchConfig, RangeInput, RangeKind } from './side-tables.ts';
import { LaunchTable, RangeTable, launchConfigFields } from './side-tables.ts';

/** What intern promises, the plain way: one id per distinct key string, in first-seen order. */
function referenceIds(configs: readonly LaunchConfig[]): number[] {
  const ids = new Map<string, number>();
  return configs.map((c) => {
    const key = launchConfigFields.map((f) => c[f]).join(',');
    if (!ids.has(key)) {
      ids.set(key, ids.size);
    }
    return ids.get(key)!;
  });
}

describe('LaunchTable.intern', () => {
  it('gives one id per configuration, as key strings would, for -0, NaN and 2^32-apart values', () => {
    const configs: LaunchConfig[] = [];
    for (let k = 0; k < 3000; k++) {
      const j = (k * 1103) % 3000;
      configs.push({
        gridX: j % 97,
        gridY: (j * 7) % 13,
        gridZ: j % 17 === 0 ? 4294967296 + (j % 2) : 1,
        blockX: 32 * (j % 5),
        blockY: j % 3 === 0 ? -0 : j % 3 === 1 ? 0 : 1,
        blockZ: 1,
        sharedMemBytes: j % 11 === 0 ? Number.NaN : j * 16,
        registersPerThread: j % 64,
      });
    }
    const table = new LaunchTable();
    const twice = [...configs, ...configs];
    expect(twice.map((c) => table.intern(c))).toEqual(referenceIds(twice));
    // internFields is the same table without an object.
    const fields = new LaunchTable();
    const ids = twice.map((c) =>
      fields.internFields(
        c.gridX,
        c.gridY,
        c.gridZ,
        c.blockX,
        c.blockY,
        c.blockZ,
        c.sharedMemBytes,
        c.registersPerThread,
      ),
    );
    expect(ids).toEqual(referenceIds(twice));
    expect(fields.slice(0)).toEqual(table.slice(0));
  });
});

describe('RangeTable.reserve', () => {
  it('keeps the ranges held and takes as many again as it made room for, then grows on', () => {
    const table = new RangeTable();
    const range = (i: number): RangeInput => ({
      startNs: i,
      endNs: i + 5,
      track: i % 7,
      nameId: i * 3,
      domainId: i % 2,
      depth: i % 300,
      kind: (i % 3) as RangeKind,
    });
    for (let i = 0; i < 300; i++) {
      table.append(range(i));
    }
    table.reserve(1000);
    for (let i = 300; i < 1700; i++) {
      table.append(range(i));
    }
    const c = table.columns();
    expect(c.count).toBe(1700);
    for (const i of [0, 299, 300, 1299, 1300, 1699]) {
      expect([
        c.startNs[i],
        c.endNs[i],
        c.track[i],
        c.nameId[i],
        c.domainId[i],
        c.depth[i],
        c.kind[i],
      ]).toEqual([i, i + 5, i % 7, i * 3, i % 2, Math.min(255, i % 300), i % 3]);
    }
  });
});

describe('RangeTable.adoptColumns', () => {
  const columns = (n: number, short = n) => ({
    startNs: Float64Array.from({ length: n }, (_, i) => i * 10),
    endNs: Float64Array.from({ length: n }, (_, i) => i * 10 + 4),
    track: Uint16Array.from({ length: n }, (_, i) => i % 3),
    nameId: Uint32Array.from({ length: n }, (_, i) => i + 1),
    domainId: new Uint32Array(n),
    depth: Uint8Array.from({ length: short }, (_, i) => i % 2),
    kind: new Uint8Array(n),
  });

  it('takes the columns as its own, without a copy, and appends after them', () => {
    const table = new RangeTable();
    const source = columns(5);
    table.adoptColumns(source, 5);
    const c = table.columns();
    expect(c.count).toBe(5);
    expect(c.startNs.buffer).toBe(source.startNs.buffer);
    expect([...c.nameId]).toEqual([1, 2, 3, 4, 5]);
    table.append({
      startNs: 99,
      endNs: 100,
      track: 2,
      nameId: 7,
      domainId: 0,
      depth: 0,
      kind: 0,
    });
    expect(table.columns().startNs[5]).toBe(99);
    expect(table.columns().startNs[4]).toBe(40);
  });

  it('fills an empty table only, and refuses a column shorter than the count', () => {
    const table = new RangeTable();
    expect(() => table.adoptColumns(columns(4, 3), 4)).toThrow(/fewer than 4 ranges/);
    table.adoptColumns(columns(2), 2);
    expect(() => table.adoptColumns(columns(2), 2)).toThrow(/empty range table/);
  });
});
