import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Trace } from '@streamscope/trace';
import { loadTrace, saveTrace } from '@streamscope/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mixedTrace } from '../test-support/mixed-trace.ts';
import { writeTilePyramid } from '../workers/tile-pyramid.ts';
import { TileFile } from './tile-file.ts';
import { rowsPerBlock } from './tile-format.ts';
import { windowFromTiles } from './tile-window.ts';
import type { TraceWindow } from './trace-window.ts';
import { windowOf } from './trace-window.ts';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'streamscope-tile-window-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function tilesOf(trace: Trace): string {
  const file = path.join(dir, 't.tiles');
  writeTilePyramid(trace, file);
  return file;
}

describe('windows read from the tiles file', () => {
  it('answer the same bytes as the window cut from the decoded trace', async () => {
    const made = mixedTrace(3000);
    const stored = loadTrace(saveTrace(made));
    // Built from the trace as an import holds it in memory, not from the stored file.
    const tiles = tilesOf(made);
    const windows: TraceWindow[] = [
      { fromNs: 0, toNs: stored.spanNs() + 1 },
      { fromNs: 1_000_500, toNs: 1_210_250 },
      // Inside kernel 997's 50 µs ([1 000 000, 1 050 000]), between kernel 1037's end
      // (1 040 420) and kernel 1038's start (1 041 000): only the long one on track 1.
      { fromNs: 1_040_500, toNs: 1_040_600 },
      { fromNs: 2_500_000, toNs: 2_600_000, tracks: [2, 0] },
      { fromNs: 2_500_000, toNs: 2_600_000, tracks: [1, 1] },
      { fromNs: 5_000_000, toNs: 6_000_000 },
      { fromNs: 10_000, toNs: 10_000 },
    ];
    for (const window of windows) {
      const expected = saveTrace(windowOf(stored, window));
      const got = await windowFromTiles(tiles, window);
      expect(Buffer.from(got).equals(Buffer.from(expected)), JSON.stringify(window)).toBe(true);
    }
    const inLong = loadTrace(await windowFromTiles(tiles, windows[2]!));
    expect(inLong.ops.trackOrder(1)).toHaveLength(1);
    // Ranges of [1 000 500, 1 210 250]: step and forward of i = 1000, 1050, …, 1200.
    expect(loadTrace(await windowFromTiles(tiles, windows[1]!)).ranges.count).toBe(10);
  });

  it('reads only the blocks that reach the window', async () => {
    const made = mixedTrace(20_000);
    const file = await TileFile.open(tilesOf(made));
    let rows = 0;
    await file.forEachBlockInWindow('ops', 1, 10_000_000, 10_010_000, (_, count) => {
      rows += count;
    });
    // 11 kernels start in the window; one block of 256 rows, or two where it straddles blocks,
    // plus the block of the last long kernel before it (9 970 000 + 3000 + 50 000 ns is later).
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThanOrEqual(3 * rowsPerBlock);
    file.close();
  });

  it('refuses a track beyond the trace, naming tracks', async () => {
    const tiles = tilesOf(mixedTrace(10));
    await expect(
      windowFromTiles(tiles, { fromNs: 0, toNs: 10, tracks: [3] }),
    ).rejects.toMatchObject({ status: 400, path: 'tracks' });
  });
});
