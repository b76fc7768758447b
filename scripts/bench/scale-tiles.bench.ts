import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type { BenchServer as Server } from './bench-server.ts';
import { root, serve, stop, tsx } from './bench-server.ts';
import type { Report } from './report.ts';
import { median } from './report.ts';

// `pnpm bench scale`, tiles (issue #22). A synthetic trace of 20M ops (packages/trace's generator,
// 12 streams and a host thread; STREAMSCOPE_BENCH_TILES_OPS sets another size) is written with the
// codec as our own .sstrace into a
// data folder, and `streamscope serve` started on it (it lists the file at start). Then:
//   server.tile_build_s_<size>  GET /tiles/meta on first use: the worker loads the trace and
//                               writes its level-of-detail file;
//   server.tile_ms_p50          round trip of GET /tiles for random tiles of every level (1024
//                               buckets each, as the browser asks);
//   server.tile_build_at_import_s_<size>  the pyramid written from the trace in memory, as an
//                               import's worker does it for a trace of 1M ops or more;
//   server.tile_bytes_per_op    the size of the level-of-detail file per op;
//   server.window_ms_untiled_<size>  GET /data?fromNs&toNs of a trace without a tiles file (one
//                               stored before, not opened yet): the whole trace decoded;
//   server.window_ms_p50_<size> GET /data?fromNs&toNs of windows of about 150k ops at random
//                               places (the exact ops a zoomed-in view fetches), read from the
//                               tiles file's rows;
// and, in timeline-page/scale-tiles-view.ts (a child process, typed against the DOM as a page):
//   timeline.tile_first_paint_ms_<size>  meta, skeleton and first tiles over HTTP to a frame
//                               drawn from tiles (the canvas is a recording stand-in: no raster);
//   timeline.tile_frame_ms_<size>_zoom   median frame of 4x zooms (one pyramid level each) drawn
//                               from cached tiles;
//   timeline.page_mb_<size>     bytes the view's data holds after the zooms: the tile cache
//                               (bounded) plus the window of exact ops and the skeleton.

const viewScript = path.join(root, 'scripts', 'bench', 'timeline-page', 'scale-tiles-view.ts');
const buildScript = path.join(root, 'apps', 'server', 'scripts', 'tile-build.ts');
/** Buckets per tile, as the browser asks (packages/timeline/src/tiled-trace.ts). */
const tileBuckets = 1024;

interface TileMeta {
  readonly spanNs: number;
  readonly levelCount: number;
  readonly fanout: number;
  readonly level0BucketNs: number;
}

const opCount = Number(process.env['STREAMSCOPE_BENCH_TILES_OPS'] ?? 20_000_000);
const label = opCount >= 1e6 ? `${Math.round(opCount / 1e6)}m` : `${Math.round(opCount / 1e3)}k`;
const id = `tiles-bench-${label}`;

async function get(url: string): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  }
  return response;
}

/** Runs a script in its own process; resolves with its standard output once it exits with 0. */
async function childOutput(script: string, args: readonly string[]): Promise<string> {
  const child = tsx(script, args);
  child.stderr.pipe(process.stderr);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) {
    throw new Error(`${path.basename(script)} exited with ${code}`);
  }
  return out;
}

export async function run(report: Report): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'streamscope-bench-tiles-'));
  let server: Server | undefined;
  try {
    await mkdir(path.join(dataDir, 'traces'), { recursive: true });
    const tracePath = path.join(dataDir, 'traces', `${id}.sstrace`);
    const tilesPath = path.join(dataDir, 'traces', `${id}.tiles`);
    // The trace is made, stored and tiled (as an import's worker tiles it) in a child process:
    // this one never holds it, and the server's first open below decodes its own copy.
    const built = JSON.parse(
      await childOutput(buildScript, [String(opCount), tracePath, tilesPath]),
    ) as {
      buildS: number;
    };
    report(`server.tile_build_at_import_s_${label}`, built.buildS, 's');
    // Gone again: the server builds it on first open, as for a trace stored before pyramids
    // were made at import.
    await rm(tilesPath);
    report(`server.trace_file_mb_${label}`, (await stat(tracePath)).size / 1e6, 'MB');
    server = await serve(dataDir);
    const api = `${server.base}/api/traces/${id}`;

    // Windows before the trace has a tiles file: each decodes the whole trace in a worker.
    const untiled: number[] = [];
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      await (await get(`${api}/data?fromNs=${1e6 * (i + 1)}&toNs=${2e6 * (i + 1)}`)).arrayBuffer();
      untiled.push(performance.now() - start);
    }
    report(`server.window_ms_untiled_${label}`, median(untiled), 'ms');

    const t0 = performance.now();
    const meta = (await (await get(`${api}/tiles/meta`)).json()) as TileMeta;
    report(`server.tile_build_s_${label}`, (performance.now() - t0) / 1000, 's');
    const tileBytes = (await stat(tilesPath)).size;
    report(`server.tile_file_mb_${label}`, tileBytes / 1e6, 'MB');
    report('server.tile_bytes_per_op', tileBytes / opCount, 'B');

    // Random tiles of every level, as the browser asks for them.
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const bucketNsOf = (level: number): number => meta.level0BucketNs * meta.fanout ** level;
    const times: number[] = [];
    for (let i = 0; i < 300; i++) {
      const tileNs = bucketNsOf(Math.floor(random() * meta.levelCount)) * tileBuckets;
      const k = Math.floor(random() * Math.ceil(meta.spanNs / tileNs));
      const start = performance.now();
      await (
        await get(`${api}/tiles?t0Ns=${k * tileNs}&t1Ns=${(k + 1) * tileNs}&px=${tileBuckets}`)
      ).arrayBuffer();
      times.push(performance.now() - start);
    }
    report('server.tile_ms_p50', median(times.slice(20)), 'ms');

    // Windows of exact ops, as a zoomed-in view asks for them.
    const windowNs = (meta.spanNs * 150_000) / opCount;
    const windowTimes: number[] = [];
    let windowBytes = 0;
    for (let i = 0; i < 24; i++) {
      const fromNs = Math.floor(random() * (meta.spanNs - windowNs));
      const start = performance.now();
      const body = await (
        await get(`${api}/data?fromNs=${fromNs}&toNs=${Math.floor(fromNs + windowNs)}`)
      ).arrayBuffer();
      windowTimes.push(performance.now() - start);
      windowBytes += body.byteLength;
    }
    report(`server.window_ms_p50_${label}`, median(windowTimes.slice(4)), 'ms');
    report('server.window_kb_mean', windowBytes / 24 / 1024, 'KB');

    // The browser's view, in a child process (its code is typed against the DOM, as in a page).
    const out = await childOutput(viewScript, [api, label]);
    const figures = JSON.parse(out) as [string, number, string][];
    for (const [name, value, unit] of figures) {
      report(name, value, unit);
    }
  } finally {
    if (server !== undefined) {
      await stop(server);
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}
