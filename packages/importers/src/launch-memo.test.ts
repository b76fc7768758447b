import type { LaunchConfig } from '@streamscope/trace';
import { LaunchTable } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { LaunchMemo } from './launch-memo.ts';

class CountingTable extends LaunchTable {
  calls = 0;

  override intern(config: LaunchConfig): number {
    this.calls++;
    return super.intern(config);
  }
}

describe('LaunchMemo', () => {
  it('gives the table’s own id for every configuration, also where slots collide', () => {
    const memoTable = new CountingTable();
    const memo = new LaunchMemo(memoTable);
    const plain = new LaunchTable();
    // 3000 distinct configurations over 1024 slots, visited in a scrambled order, twice.
    const configs: LaunchConfig[] = [];
    for (let k = 0; k < 3000; k++) {
      configs.push({
        gridX: k % 97,
        gridY: (k * 7) % 13,
        gridZ: 1,
        blockX: 32 * (k % 5),
        blockY: k % 3 === 0 ? -0 : 1,
        blockZ: 1,
        sharedMemBytes: k % 11 === 0 ? Number.NaN : k * 16,
        registersPerThread: k % 64,
      });
    }
    for (let round = 0; round < 2; round++) {
      for (let k = 0; k < configs.length; k++) {
        const config = configs[(k * 1103) % configs.length]!;
        const id = memo.intern(config);
        expect(id).toBe(plain.intern(config));
      }
    }
    expect(memoTable.slice(0)).toEqual(plain.slice(0));
    expect(memoTable.calls).toBeGreaterThan(configs.length); // slots were taken over
  });

  it('asks the table about once per configuration when a trace repeats a few hundred', () => {
    const table = new CountingTable();
    const memo = new LaunchMemo(table);
    const config = (k: number): LaunchConfig => ({
      gridX: k,
      gridY: 1,
      gridZ: 1,
      blockX: 128,
      blockY: 1,
      blockZ: 1,
      sharedMemBytes: 0,
      registersPerThread: 32,
    });
    for (let k = 0; k < 30_000; k++) {
      expect(memo.intern(config((k * 7) % 300))).toBe(table.intern(config((k * 7) % 300)));
    }
    // Every check above also asks the table once itself: 30,000 of the calls.
    expect(table.calls - 30_000).toBeLessThan(400);
  });
});
