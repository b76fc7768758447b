import { mkdtemp, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OpKind, StreamType, Trace, decodeTiles, encodeTiles } from '@streamscope/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOrder } from '../workers/tile-order.ts';
import { writeTilePyramid } from '../workers/tile-pyramid.ts';
import { TileFile } from './tile-file.ts';
import { searchTiles } from './tile-search.ts';
import { finestBucketNs, levelCountFor, tileFanout } from './tile-format.ts';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'streamscope-tiles-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Two streams: track 0 runs `n` kernels 'gemm' (100 ns every 1000 ns) with a copy 'h2d' every
 * 10th slot instead; track 1 runs one long memset 'fill' every 7000 ns starting at 500 ns.
 */
function twoStreams(n: number): Trace {
  const trace = new Trace({ title: 'tiles' });
  trace.addDevice({ deviceId: 0, name: 'gpu' });
  trace.addProcess({ pid: 1, name: 'app' });
  for (const streamId of [7, 8]) {
    trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId: 0,
      contextId: 1,
      streamId,
      streamType: StreamType.NonBlocking,
      priority: 0,
    });
  }
  const gemm = trace.strings.intern('gemm');
  const h2d = trace.strings.intern('h2d');
  const fill = trace.strings.intern('fill');
  for (let i = 0; i < n; i++) {
    const copy = i % 10 === 0;
    trace.addOp({
      startNs: i * 1000,
      endNs: i * 1000 + 100,
      track: 0,
      kind: copy ? OpKind.CopyHtoD : OpKind.Kernel,
      nameId: copy ? h2d : gemm,
      bytes: copy ? 4096 : 0,
    });
    if (i % 7 === 0) {
      trace.addOp({
        startNs: i * 1000 + 500,
        endNs: i * 1000 + 6500,
        track: 1,
        kind: OpKind.Memset,
        nameId: fill,
      });
    }
  }
  return trace;
}

function built(trace: Trace): Promise<TileFile> {
  const file = path.join(dir, 't.tiles');
  writeTilePyramid(trace, file);
  return TileFile.open(file);
}

describe('the tile pyramid', () => {
  it('covers every op of every track once at each level, in bucket order', async () => {
    const trace = twoStreams(5000);
    const tiles = await built(trace);
    const h = tiles.header;
    expect(h.opCount).toBe(trace.ops.count);
    expect(h.levelCount).toBe(
      levelCountFor(trace.spanNs(), finestBucketNs(trace.spanNs(), trace.ops.count), tileFanout),
    );
    expect(h.levelCount).toBeGreaterThan(2);
    for (let level = 0; level < h.levelCount; level++) {
      const set = await tiles.tiles(level, 0, trace.spanNs() + 1);
      for (let t = 0; t < 2; t++) {
        let ops = 0;
        for (let k = set.trackFirst[t]!; k < set.trackFirst[t + 1]!; k++) {
          ops += set.opCounts[k]!;
          if (k > set.trackFirst[t]!) {
            expect(set.buckets[k]!).toBeGreaterThan(set.buckets[k - 1]!);
          }
        }
        expect(ops).toBe(trace.ops.trackOrder(t).length);
      }
    }
    tiles.close();
  });

  it('names the kind that kept a bucket busiest, and a second one when it was a third as busy', async () => {
    const trace = twoStreams(5000);
    const tiles = await built(trace);
    // Coarsest level: the kernels' 900 x 100 ns outweigh the copies' 100 x 100 ns by 9 to 1.
    const top = await tiles.tiles(tiles.header.levelCount - 1, 0, trace.spanNs() + 1);
    const k = top.trackFirst[0]!;
    expect(top.kinds[k]! & 0xff).toBe(OpKind.Kernel);
    expect(top.kinds[k]! >> 8).toBe(0xff);
    // Track 1's memsets: 6000 ns long, so a bucket's span reaches past its own width.
    const fine = await tiles.tiles(0, 0, 8000);
    const m = fine.trackFirst[1]!;
    expect(fine.kinds[m]! & 0xff).toBe(OpKind.Memset);
    expect(fine.spanNs[m]!).toBeGreaterThanOrEqual(6000);
    tiles.close();
  });

  it('returns only buckets that start in the range, at the level the resolution asks for', async () => {
    const trace = twoStreams(5000);
    const tiles = await built(trace);
    const bucketNs = tiles.bucketNsOf(1);
    expect(tiles.levelFor(bucketNs)).toBe(1);
    expect(tiles.levelFor(bucketNs * 1.5)).toBe(1);
    expect(tiles.levelFor(0.5)).toBe(0);
    // Buckets 2, 3 and 4 of level 1.
    const fromNs = 2 * bucketNs;
    const toNs = 5 * bucketNs;
    const set = await tiles.tiles(1, fromNs + 1, toNs);
    expect(set.bucketNs).toBe(bucketNs);
    expect([...set.buckets.subarray(set.trackFirst[0], set.trackFirst[1])]).toEqual([2, 3, 4]);
    // Track 0 has a slot every 1000 ns: those that start in [fromNs, toNs).
    let ops = 0;
    for (let k = set.trackFirst[0]!; k < set.trackFirst[1]!; k++) {
      ops += set.opCounts[k]!;
    }
    expect(ops).toBe(Math.ceil(toNs / 1000) - Math.ceil(fromNs / 1000));
    // The wire form carries it unchanged.
    const wire = encodeTiles(set);
    const back = decodeTiles(wire.buffer);
    expect([...back.buckets]).toEqual([...set.buckets]);
    expect([...back.trackFirst]).toEqual([...set.trackFirst]);
    expect([...back.kinds]).toEqual([...set.kinds]);
    tiles.close();
  });

  it('reads any op by index as the trace holds it', async () => {
    const trace = twoStreams(300);
    const tiles = await built(trace);
    const ops = trace.ops.columns();
    for (const i of [0, 1, 17, trace.ops.count - 1]) {
      const row = await tiles.op(i);
      expect(row).toMatchObject({
        op: i,
        startNs: ops.startNs[i],
        endNs: ops.endNs[i],
        track: ops.track[i],
        bytes: ops.bytes[i],
        name: trace.strings.get(ops.nameId[i]!),
      });
    }
    tiles.close();
  });

  it('searches names over the whole trace: count, first matches in time order, next and previous', async () => {
    const trace = twoStreams(3000);
    const tiles = await built(trace);
    const names = tiles.matchingNames((name) => name.includes('h') || name === 'fill');
    expect(names.map((id) => tiles.names[id])).toEqual(['h2d', 'fill']);
    const first = await searchTiles(tiles, names, -Infinity, 'next', 5);
    // 300 copies and 429 memsets.
    expect(first.count).toBe(300 + 429);
    expect(first.matches.map((m) => [m.name, m.startNs])).toEqual([
      ['h2d', 0],
      ['fill', 500],
      ['fill', 7500],
      ['h2d', 10_000],
      ['fill', 14_500],
    ]);
    const next = await searchTiles(tiles, names, 20_001, 'next', 2);
    expect(next.matches.map((m) => m.startNs)).toEqual([21_500, 28_500]);
    const previous = await searchTiles(tiles, names, 20_000, 'previous', 2);
    expect(previous.matches.map((m) => m.startNs)).toEqual([10_000, 14_500]);
    tiles.close();
  });

  it('merges the tracks into one start order', () => {
    const trace = twoStreams(200);
    const order = startOrder(trace);
    const starts = trace.ops.columns().startNs;
    expect(order.length).toBe(trace.ops.count);
    expect(new Set(order).size).toBe(trace.ops.count);
    for (let k = 1; k < order.length; k++) {
      expect(starts[order[k]!]!).toBeGreaterThanOrEqual(starts[order[k - 1]!]!);
    }
  });

  it('refuses a truncated file, saying so', async () => {
    const trace = twoStreams(300);
    const file = path.join(dir, 't.tiles');
    writeTilePyramid(trace, file);
    await truncate(file, 1000);
    await expect(TileFile.open(file)).rejects.toThrow(
      /t\.tiles: sections end at \d+ but the file is 1000 bytes/,
    );
  });
});
