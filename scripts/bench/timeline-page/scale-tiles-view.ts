import type { TileMeta } from '@streamscope/timeline';
import { TiledTrace, createTimelineView } from '@streamscope/timeline';
import type { Trace } from '@streamscope/trace';
import { decodeTiles, loadTrace } from '@streamscope/trace';

// The view half of scale-tiles.bench.ts, run by it as a child process with the trace's API base
// and the size label: the app's tiled view (TiledTrace + createTimelineView) over HTTP against
// the running server, drawing into a canvas stand-in whose context records nothing (the view's
// own work; no raster). Prints its figures as JSON [name, value, unit][].

declare const process: { readonly argv: readonly string[] };

const api = process.argv[2] ?? '';
const label = process.argv[3] ?? '';
const widthPx = 1440;
const gutterPx = 200;

async function get(url: string, signal?: AbortSignal): Promise<Response> {
  const response = await fetch(url, signal === undefined ? {} : { signal });
  if (!response.ok) {
    throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  }
  return response;
}

function nullCanvas(): HTMLCanvasElement {
  const none = (): undefined => undefined;
  // Any method is a no-op; properties (fillStyle, font…) keep what is set.
  const fields: Record<string | symbol, unknown> = {};
  const ctx = new Proxy(fields, {
    get: (_, key) => (key in fields ? fields[key] : none),
    set: (_, key, value: unknown) => {
      fields[key] = value;
      return true;
    },
  });
  return {
    width: widthPx,
    height: 900,
    clientWidth: widthPx,
    clientHeight: 900,
    getContext: (kind: string) => (kind === '2d' ? ctx : null),
    addEventListener: none,
    removeEventListener: none,
  } as unknown as HTMLCanvasElement;
}

async function settled(source: TiledTrace): Promise<void> {
  while (source.pending() > 0) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const figures: [string, number, string][] = [];
const t0 = performance.now();
const meta = (await (await get(`${api}/tiles/meta`)).json()) as TileMeta;
const skeleton = loadTrace(
  new Uint8Array(await (await get(`${api}/tiles/skeleton`)).arrayBuffer()),
);
let windowTrace: Trace = skeleton;
const view = createTimelineView(nullCanvas(), {
  clock: { request: () => 0, cancel: () => undefined },
  devicePixelRatio: 1,
  gutterPx,
});
const source = new TiledTrace(
  meta,
  {
    tiles: async (a, b, px, signal) =>
      decodeTiles(
        await (await get(`${api}/tiles?t0Ns=${a}&t1Ns=${b}&px=${px}`, signal)).arrayBuffer(),
      ),
    window: async (fromNs, toNs, signal) =>
      loadTrace(
        new Uint8Array(
          await (await get(`${api}/data?fromNs=${fromNs}&toNs=${toNs}`, signal)).arrayBuffer(),
        ),
      ),
  },
  {
    onWindow: (next) => {
      windowTrace = next;
      view.replaceTrace(next);
    },
  },
);
view.setTileSource(source);
view.setTrace(skeleton);
view.fit();
view.renderNow();
await settled(source);
view.requestRedraw();
const first = view.renderNow();
figures.push([`timeline.tile_first_paint_ms_${label}`, performance.now() - t0, 'ms']);
if (!first.fromTiles || first.drawnOps === 0) {
  throw new Error(`the first frame drew ${first.drawnOps} ops, fromTiles ${first.fromTiles}`);
}

// 4x zooms (one pyramid level each) about three points, down to a few µs, back by Fit: once to
// fetch tiles and windows, then three timed passes from the cache.
const steps: (() => void)[] = [];
for (const xFraction of [0.3, 0.5, 0.7]) {
  steps.push(() => view.fit());
  for (let i = 0; i < 8; i++) {
    steps.push(() => view.zoomAt(gutterPx + (widthPx - gutterPx) * xFraction, 4));
  }
}
for (const step of steps) {
  step();
  view.renderNow();
  await settled(source);
}
const frames: number[] = [];
let fromTiles = 0;
for (let pass = 0; pass < 3; pass++) {
  for (const step of steps) {
    const lodBefore = view.stats().lod;
    step();
    view.requestRedraw();
    const stats = view.renderNow();
    if (stats.lod !== lodBefore) {
      frames.push(stats.frameMs);
      fromTiles += stats.fromTiles ? 1 : 0;
    }
    await settled(source);
  }
}
if (frames.length === 0 || fromTiles === 0) {
  throw new Error(`${frames.length} zooms changed the level, ${fromTiles} of them from tiles`);
}
figures.push([`timeline.tile_frame_ms_${label}_zoom`, median(frames), 'ms']);
figures.push([`timeline.tile_frame_ms_${label}_zoom_max`, Math.max(...frames), 'ms']);
figures.push([
  `timeline.page_mb_${label}`,
  (source.bytesHeld() + windowTrace.ops.byteSize() + skeleton.ops.byteSize()) / 1e6,
  'MB',
]);
figures.push(['timeline.tile_cache_mb', source.bytesHeld() / 1e6, 'MB']);
view.dispose();
source.dispose();
console.log(JSON.stringify(figures));
