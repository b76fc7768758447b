import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type { BenchServer as Server } from './bench-server.ts';
import { root, serve, stop, tsx } from './bench-server.ts';
import type { Report } from './report.ts';
import { median } from './report.ts';

// `pnpm bench scale-tiles-queries` (issue #22): what a tiled view's whole-trace questions cost,
// before and after they were answered from the tiles file, in one run. Per size (GPU ops;
// STREAMSCOPE_BENCH_QUERY_GPU_OPS, comma-separated, default 300000,2000000; the synthetic trace
// has one API call per GPU op, so twice as many ops), a trace and its tiles file are written by
// a child process (apps/server/scripts/tile-build.ts), and `streamscope serve` is started on it:
//   *_before  the tiles file set aside: the server answers from the trace decoded whole in a
//             worker, per question, as it did before (and still does for a trace without one);
//   *_after   the tiles file back in place: the answers read it (tile-queries.ts).
// Figures, round trips over HTTP, median of each set:
//   server.query_area_ms_p50_<size>_<when>   GET /area of 5% of the span at random places, every track;
//   server.query_flows_ms_p50_<size>_<when>  GET /flows of random ops (a kernel's, an API call's);
//   server.query_marks_ms_p50_<size>_<when>  GET /search/marks?q=kernel_1 (11 of the 64 kernel
//                                            names: about a sixth of the GPU ops), 2048 buckets.
//   server.query_show50_ops_ms_p50_<size>    50 GET /ops/:index at once, as a finding's "show" asks;
//   server.tile_bytes_per_op_<size>          the tiles file (with its postings' starts and flow index).
// bench.load_1m is the machine's load average as the run starts: the figures are wall times.

const buildScript = path.join(root, 'apps', 'server', 'scripts', 'tile-build.ts');
const sizes = (process.env['STREAMSCOPE_BENCH_QUERY_GPU_OPS'] ?? '300000,2000000')
  .split(',')
  .map(Number);

interface OpRow {
  readonly track: number;
  readonly startNs: number;
}

async function get(url: string): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  }
  return response;
}

async function timed(urls: readonly string[]): Promise<number> {
  const times: number[] = [];
  for (const url of urls) {
    const start = performance.now();
    await (await get(url)).arrayBuffer();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Writes the trace and its tiles file; the tiles file's bytes. */
async function build(gpuOps: number, tracePath: string, tilesPath: string): Promise<number> {
  const child = tsx(buildScript, [String(gpuOps * 2), tracePath, tilesPath]);
  child.stderr.pipe(process.stderr);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) {
    throw new Error(`tile-build.ts exited with ${code}`);
  }
  return (JSON.parse(out) as { tileBytes: number }).tileBytes;
}

async function measure(report: Report, gpuOps: number): Promise<void> {
  const label = gpuOps >= 1e6 ? `${Math.round(gpuOps / 1e6)}m` : `${Math.round(gpuOps / 1e3)}k`;
  const id = `queries-bench-${label}`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'streamscope-bench-queries-'));
  let server: Server | undefined;
  try {
    await mkdir(path.join(dataDir, 'traces'), { recursive: true });
    const tracePath = path.join(dataDir, 'traces', `${id}.sstrace`);
    const tilesPath = path.join(dataDir, 'traces', `${id}.tiles`);
    const asidePath = path.join(dataDir, `${id}.tiles-aside`);
    const tileBytes = await build(gpuOps, tracePath, tilesPath);
    report(`server.tile_bytes_per_op_${label}`, tileBytes / (gpuOps * 2), 'B');
    server = await serve(dataDir);
    // The server's log, told with a failure (a 500 says only that it failed).
    let log = '';
    server.child.stderr.on(
      'data',
      (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)),
    );
    const fail = (error: unknown): never => {
      throw new Error(`${(error as Error).message}\nserver log:\n${log}`);
    };
    const api = `${server.base}/api/traces/${id}`;
    const meta = (await (await get(`${api}/tiles/meta`)).json()) as {
      opCount: number;
      spanNs: number;
    };
    let seed = 11;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // The same questions before and after.
    const areaNs = meta.spanNs * 0.05;
    const areas = Array.from({ length: 9 }, () => {
      const fromNs = Math.floor(random() * (meta.spanNs - areaNs));
      return `${api}/area?fromNs=${fromNs}&toNs=${Math.floor(fromNs + areaNs)}`;
    });
    const flows: string[] = [];
    for (let k = 0; k < 9; k++) {
      const index = Math.floor(random() * meta.opCount);
      const op = (await (await get(`${api}/ops/${index}`)).json()) as OpRow;
      flows.push(`${api}/flows?track=${op.track}&startNs=${op.startNs}`);
    }
    // A finding's "show" in tiled mode looks its first ops up by index, at once (50 here); it
    // reads the tiles file already (GET /ops/:index), so one figure, with the file in place.
    const shows: number[] = [];
    for (let k = 0; k < 9; k++) {
      const first = Math.floor(random() * (meta.opCount - 5000));
      const start = performance.now();
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          get(`${api}/ops/${first + j * 97}`).then((r) => r.json()),
        ),
      );
      shows.push(performance.now() - start);
    }
    report(`server.query_show50_ops_ms_p50_${label}`, median(shows), 'ms');
    const marks = Array.from({ length: 9 }, () => `${api}/search/marks?q=kernel_1&buckets=2048`);

    await rename(tilesPath, asidePath);
    const before = {
      area: await timed(areas.slice(0, 5)).catch(fail),
      flows: await timed(flows.slice(0, 5)).catch(fail),
      marks: await timed(marks.slice(0, 5)).catch(fail),
    };
    await rename(asidePath, tilesPath);
    // A first question opens the file; the figures are of the questions after it.
    await get(marks[0]!);
    const after = {
      area: await timed([...areas, ...areas]).catch(fail),
      flows: await timed([...flows, ...flows]).catch(fail),
      marks: await timed([...marks, ...marks]).catch(fail),
    };
    for (const what of ['area', 'flows', 'marks'] as const) {
      report(`server.query_${what}_ms_p50_${label}_before`, before[what], 'ms');
      report(`server.query_${what}_ms_p50_${label}_after`, after[what], 'ms');
      report(`server.query_${what}_speedup_${label}`, before[what] / after[what], 'x');
    }
  } finally {
    if (server !== undefined) {
      await stop(server);
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function run(report: Report): Promise<void> {
  report('bench.load_1m', loadavg()[0]!, '');
  for (const gpuOps of sizes) {
    await measure(report, gpuOps);
  }
}
