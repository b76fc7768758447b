import type { TileSet } from '@streamscope/trace';
import { OpKind, Trace, noKind } from '@streamscope/trace';
import { IntervalBuilder } from './interval-buffers.ts';
import { describe, expect, it } from 'vitest';
import { TileCache } from './tile-cache.ts';
import type { TileFetcher, TileMeta } from './tiled-trace.ts';
import { TiledTrace, tileBuckets } from './tiled-trace.ts';

// A pyramid of 1 ns buckets at level 0, fan-out 4, 8 levels, over a span of 10 000 000 ns: a tile
// of level l covers 1024 * 4^l ns.
const meta: TileMeta = {
  opCount: 1_000_000,
  spanNs: 10_000_000,
  trackCount: 1,
  levelCount: 8,
  fanout: 4,
  level0BucketNs: 1,
};

/** A tile whose every 16th bucket holds `opsPerBucket` kernels of track 0. */
function tileOf(t0Ns: number, t1Ns: number, px: number, opsPerBucket: number): TileSet {
  const bucketNs = (t1Ns - t0Ns) / px;
  const buckets: number[] = [];
  for (let b = t0Ns / bucketNs; b < t1Ns / bucketNs; b += 16) {
    buckets.push(b);
  }
  const n = buckets.length;
  return {
    level: Math.round(Math.log(bucketNs) / Math.log(4)),
    bucketNs,
    trackFirst: Uint32Array.of(0, n),
    buckets: Uint32Array.from(buckets),
    opCounts: new Uint32Array(n).fill(opsPerBucket),
    busyNs: new Float32Array(n).fill(bucketNs / 2),
    spanNs: new Float32Array(n).fill(bucketNs),
    kinds: new Uint16Array(n).fill(OpKind.Kernel | (noKind << 8)),
  };
}

class FakeFetcher implements TileFetcher {
  readonly tileCalls: { t0Ns: number; t1Ns: number; resolve: () => void }[] = [];
  readonly windowCalls: { fromNs: number; toNs: number; resolve: () => void }[] = [];
  constructor(private readonly opsPerBucket: number) {}
  tiles(t0Ns: number, t1Ns: number, px: number): Promise<TileSet> {
    return new Promise((resolve) => {
      this.tileCalls.push({
        t0Ns,
        t1Ns,
        resolve: () => resolve(tileOf(t0Ns, t1Ns, px, this.opsPerBucket)),
      });
    });
  }
  window(fromNs: number, toNs: number): Promise<Trace> {
    return new Promise((resolve) => {
      this.windowCalls.push({ fromNs, toNs, resolve: () => resolve(new Trace()) });
    });
  }
}

async function settle(calls: { resolve: () => void }[]): Promise<void> {
  for (const call of calls.splice(0)) {
    call.resolve();
  }
  await new Promise((r) => setTimeout(r, 0));
}

function drawn(source: TiledTrace, fromNs: number, toNs: number, nsPerPx: number): number {
  const out = new IntervalBuilder();
  out.reset(1);
  out.beginRow(0);
  const ops = source.appendTrack(out, 0, 0, fromNs, toNs, fromNs, nsPerPx);
  out.endRow(0);
  return ops;
}

describe('TiledTrace', () => {
  it('fetches the tiles of the padded window once, at the level the zoom asks for', () => {
    const fetcher = new FakeFetcher(1);
    const source = new TiledTrace(meta, fetcher);
    // 65 536 ns over 1000 px: 65.5 ns/px → level 3 (64 ns buckets), tiles of 65 536 ns.
    source.want(131_072, 196_608, 65.536);
    expect(source.levelFor(65.536)).toBe(3);
    // Padded by the span on each side: [65 536, 262 144] → tiles 1, 2, 3 and 4.
    expect(fetcher.tileCalls.map((c) => c.t0Ns / (64 * tileBuckets))).toEqual([1, 2, 3, 4]);
    source.want(131_072, 196_608, 65.536);
    expect(fetcher.tileCalls).toHaveLength(4);
  });

  it('draws nothing before tiles arrive, a coarser level while the wanted one is missing, then the wanted one', async () => {
    const fetcher = new FakeFetcher(1);
    let redraws = 0;
    const source = new TiledTrace(meta, fetcher, { onTiles: () => redraws++, exactOpLimit: 0 });
    source.want(0, 4_000_000, 4000);
    expect(drawn(source, 0, 4_000_000, 4000)).toBe(0);
    await settle(fetcher.tileCalls);
    expect(redraws).toBeGreaterThan(0);
    const coarse = drawn(source, 0, 4_000_000, 4000);
    expect(coarse).toBeGreaterThan(0);
    // Zoom in 4x: level 5 is not cached, level 6 (what arrived) covers the range meanwhile.
    source.want(0, 1_000_000, 1000);
    expect(drawn(source, 0, 1_000_000, 1000)).toBeGreaterThan(0);
    const version = source.version;
    await settle(fetcher.tileCalls);
    expect(source.version).toBeGreaterThan(version);
    // Level 5's buckets are 4 times finer, so 4 times more of them hold ops (every 16th bucket).
    expect(drawn(source, 0, 1_000_000, 1000)).toBeGreaterThan(drawn(source, 0, 1_000_000, 4000));
  });

  it('fetches the exact ops of the padded window once the tiles say it holds few enough', async () => {
    const fetcher = new FakeFetcher(1);
    const windows: Trace[] = [];
    const source = new TiledTrace(meta, fetcher, {
      exactOpLimit: 500,
      onWindow: (t) => windows.push(t),
    });
    // Level 6 (4096 ns buckets), every 16th holding 1 op: 9 000 000 / 65 536 ≈ 137 ops in the
    // padded window [0, 9 000 000], below 500.
    source.want(3_000_000, 6_000_000, 4096);
    expect(fetcher.windowCalls).toHaveLength(0);
    await settle(fetcher.tileCalls);
    source.want(3_000_000, 6_000_000, 4096);
    expect(fetcher.windowCalls.map((c) => [c.fromNs, c.toNs])).toEqual([[0, 9_000_000]]);
    expect(source.exactRange()).toBeUndefined();
    await settle(fetcher.windowCalls);
    expect(windows).toHaveLength(1);
    // It reaches the trace's start, so nothing lies before it.
    expect(source.exactRange()).toEqual({ startNs: -Infinity, endNs: 9_000_000 });
    // Inside the exact range: no more window requests, even for a window that starts before the
    // trace (Fit leaves air on both sides).
    source.want(3_500_000, 5_000_000, 4096);
    source.want(-100_000, 2_000_000, 4096);
    expect(fetcher.windowCalls).toHaveLength(0);
  });

  it('keeps to tiles where a window holds more ops than the limit', async () => {
    const fetcher = new FakeFetcher(1000);
    const source = new TiledTrace(meta, fetcher, { exactOpLimit: 500 });
    source.want(3_000_000, 6_000_000, 4096);
    await settle(fetcher.tileCalls);
    source.want(3_000_000, 6_000_000, 4096);
    expect(fetcher.windowCalls).toHaveLength(0);
  });
});

describe('TileCache', () => {
  it('holds at most its byte limit, dropping the least recently used first', () => {
    const one = tileOf(0, 1024, 1024, 1);
    const bytes = new TileCache(1 << 30);
    bytes.put('x', one);
    const each = bytes.bytesHeld();
    const cache = new TileCache(each * 3);
    cache.put('a', one);
    cache.put('b', one);
    cache.put('c', one);
    expect(cache.get('a')).toBe(one); // a is now the most recent
    cache.put('d', one);
    expect(cache.bytesHeld()).toBeLessThanOrEqual(each * 3);
    expect([cache.has('a'), cache.has('b'), cache.has('c'), cache.has('d')]).toEqual([
      true,
      false,
      true,
      true,
    ]);
  });
});
