import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createTimelineView, syntheticTrace } from '@streamscope/timeline';
import type { Trace } from '@streamscope/trace';
import { decodeTiles, encodeTiles } from '@streamscope/trace';
import { TileFile } from '../../apps/server/src/storage/tile-file.ts';
import { windowOf } from '../../apps/server/src/storage/trace-window.ts';
import { writeTilePyramid } from '../../apps/server/src/workers/tile-pyramid.ts';
import { TiledTrace, tileBuckets } from '../../apps/web/src/data/tiled-trace.ts';
import { fakeCanvas, manualClock } from '../../packages/timeline/src/fake-canvas.ts';
import type { Report } from './report.ts';

// `pnpm bench scale`, tiles (issue #22): a synthetic trace of 20M ops (STREAMSCOPE_BENCH_TILES_OPS
// sets another size) made in memory with packages/timeline's generator, its level-of-detail file
// written as the server's worker writes it, then:
//   server.tile_ms_p50 — what GET /tiles does per request (read by offset + encode), over random
//     tiles of every level, as the browser asks for them (1024 buckets each);
//   timeline.tile_first_paint_ms — the view from nothing to a frame drawn from tiles (node: no
//     network, the canvas is a recording stand-in, so no raster);
//   timeline.tile_frame_ms_<size>_zoom — median frame of a 4x zoom (one pyramid level) drawn
//     from cached tiles;
//   timeline.page_mb_<size> — bytes the view's data holds at the end: the tile cache (bounded)
//     plus the window of exact ops and the skeleton trace.

const opCount = Number(process.env['STREAMSCOPE_BENCH_TILES_OPS'] ?? 20_000_000);
const label = opCount >= 1e6 ? `${Math.round(opCount / 1e6)}m` : `${Math.round(opCount / 1e3)}k`;

/** Lets fetches that resolve at once (promises) land. */
async function settle(source: TiledTrace): Promise<void> {
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  void source;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function run(report: Report): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'streamscope-bench-tiles-'));
  try {
    const trace = syntheticTrace({ opCount });
    const file = path.join(dir, 'bench.tiles');
    let t0 = performance.now();
    writeTilePyramid(trace, file);
    report(`server.tile_build_s_${label}`, (performance.now() - t0) / 1000, 's');
    report(`server.tile_file_mb_per_1m_ops`, (await stat(file)).size / 1e6 / (opCount / 1e6), 'MB');
    const tiles = TileFile.open(file);

    // Server: random tiles of every level.
    const h = tiles.header;
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 400; i++) {
      const level = Math.floor(random() * h.levelCount);
      const tileNs = tiles.bucketNsOf(level) * tileBuckets;
      const k = Math.floor(random() * Math.ceil(h.spanNs / tileNs));
      const start = performance.now();
      const set = tiles.tiles(tiles.levelFor(tileNs / tileBuckets), k * tileNs, (k + 1) * tileNs);
      bytes += encodeTiles(set).byteLength;
      times.push(performance.now() - start);
    }
    report('server.tile_ms_p50', median(times.slice(50)), 'ms');
    report('server.tile_kb_mean', bytes / times.length / 1024, 'KB');

    // The browser's view over those tiles.
    const skeleton = windowOf(trace, { fromNs: 0, toNs: 0 });
    let windowTrace: Trace = skeleton;
    const source = new TiledTrace(
      {
        opCount: h.opCount,
        spanNs: h.spanNs,
        trackCount: h.trackCount,
        levelCount: h.levelCount,
        fanout: h.fanout,
        level0BucketNs: h.level0BucketNs,
      },
      {
        tiles: (a, b, px) =>
          Promise.resolve(
            decodeTiles(encodeTiles(tiles.tiles(tiles.levelFor((b - a) / px), a, b)).buffer),
          ),
        window: (fromNs, toNs) => Promise.resolve(windowOf(trace, { fromNs, toNs })),
      },
      {
        onWindow: (next) => {
          windowTrace = next;
          view.replaceTrace(next);
        },
      },
    );
    const { clock } = manualClock();
    const view = createTimelineView(fakeCanvas(1440, 900).canvas, { clock, devicePixelRatio: 1 });
    t0 = performance.now();
    view.setTileSource(source);
    view.setTrace(skeleton);
    view.fit();
    view.renderNow();
    await settle(source);
    const first = view.renderNow();
    report(`timeline.tile_first_paint_ms_${label}`, performance.now() - t0, 'ms');
    if (!first.fromTiles || first.drawnOps === 0) {
      throw new Error(`the first frame drew ${first.drawnOps} ops from tiles=${first.fromTiles}`);
    }

    // Zoom in by 4 (one level) six times about points along the trace, and back out; once to
    // fetch the tiles, then timed from the cache.
    const path4 = (): (() => void)[] => {
      const steps: (() => void)[] = [];
      for (const xFraction of [0.3, 0.5, 0.7]) {
        steps.push(() => view.fit());
        for (let i = 0; i < 6; i++) {
          steps.push(() => view.zoomAt(200 + (1440 - 200) * xFraction, 4));
        }
      }
      return steps;
    };
    for (const step of path4()) {
      step();
      view.renderNow();
      await settle(source);
      view.renderNow();
    }
    const frames: number[] = [];
    let levelChanges = 0;
    for (let pass = 0; pass < 3; pass++) {
      for (const step of path4()) {
        const before = view.stats().lod;
        step();
        const stats = view.renderNow();
        if (stats.lod !== before) {
          levelChanges++;
          frames.push(stats.frameMs);
        }
        await settle(source);
      }
    }
    report(`timeline.tile_frame_ms_${label}_zoom`, median(frames), 'ms');
    report(`timeline.tile_frame_ms_${label}_zoom_max`, Math.max(...frames), 'ms');
    if (levelChanges === 0) {
      throw new Error('no zoom changed the level of detail');
    }
    const heldBytes = source.bytesHeld() + windowTrace.ops.byteSize() + skeleton.ops.byteSize();
    report(`timeline.page_mb_${label}`, heldBytes / 1e6, 'MB');
    report('timeline.tile_cache_mb', source.bytesHeld() / 1e6, 'MB');
    view.dispose();
    source.dispose();
    tiles.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
