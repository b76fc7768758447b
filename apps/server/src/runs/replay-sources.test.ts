import type { ReplaySource } from '@streamscope/executor';
import { replaySourceBytes, replaySourceOf } from '@streamscope/executor';
import { describe, expect, it } from 'vitest';
import { kernelTrace } from '../test-support/kernel-trace.ts';
import { ReplaySourceCache } from './replay-sources.ts';

/** Sources of different sizes by id: `n<count>` holds count kernels. */
function loader(): { load: (id: string) => Promise<ReplaySource>; loads: string[] } {
  const loads: string[] = [];
  return {
    loads,
    load: (id) => {
      loads.push(id);
      return Promise.resolve(replaySourceOf(kernelTrace(Number(id.slice(1)))));
    },
  };
}

const bytesOf = (count: number): number => replaySourceBytes(replaySourceOf(kernelTrace(count)));

describe('the cache of replay sources', () => {
  it('never holds more bytes than its cap, dropping the least recently used first', async () => {
    // Room for two sources of 1000 ops, not three (a, b and c differ by name only).
    const capBytes = 2 * bytesOf(1000);
    const { load, loads } = loader();
    const cache = new ReplaySourceCache(load, capBytes);
    const sequence = ['a1000', 'b1000', 'a1000', 'c1000', 'b1000', 'd400', 'e2', 'f1500', 'g900'];
    for (const id of sequence) {
      await cache.get(id);
      expect(cache.bytes).toBeLessThanOrEqual(capBytes);
      const heldBytes = cache.ids().reduce((sum, held) => sum + bytesOf(Number(held.slice(1))), 0);
      expect(cache.bytes).toBe(heldBytes);
    }
    // a b | a (held: used again) | c: b is the least recently used, and goes | b: then a goes.
    expect(loads.slice(0, 4)).toEqual(['a1000', 'b1000', 'c1000', 'b1000']);
    expect(cache.ids().at(-1)).toBe('g900');
    expect(cache.ids()).not.toContain('a1000');
  });

  it('serves a source bigger than the whole cap and does not keep it', async () => {
    const { load, loads } = loader();
    const cache = new ReplaySourceCache(load, bytesOf(100));
    await cache.get('n100');
    const big = await cache.get('n5000');
    expect(big.ops.count).toBe(5000);
    expect(cache.ids()).toEqual(['n100']);
    await cache.get('n5000');
    expect(loads).toEqual(['n100', 'n5000', 'n5000']);
  });

  it('loads a source once for replays that ask for it at the same time', async () => {
    const { load, loads } = loader();
    const cache = new ReplaySourceCache(load, bytesOf(1000));
    const [a, b] = await Promise.all([cache.get('n300'), cache.get('n300')]);
    expect(a).toBe(b);
    expect(loads).toEqual(['n300']);
    cache.forget('n300');
    expect(cache.bytes).toBe(0);
    expect(cache.ids()).toEqual([]);
  });
});
