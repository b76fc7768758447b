import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from '@playwright/test';
import type { Page } from '@playwright/test';
import type { Report } from './report.ts';

// Browser benchmark of packages/timeline: bundles timeline-page/ with esbuild, serves it on
// 127.0.0.1, drives Debian's Chromium through Playwright and reports, per synthetic trace size
// and zoom, the median frame time (draw + raster, read back) and the page's memory per op.

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const sizes = [
  { label: '1k', ops: 1_000 },
  { label: '100k', ops: 100_000 },
  { label: '1m', ops: 1_000_000 },
  { label: '5m', ops: 5_000_000 },
] as const;
const zooms = ['full', 'mid', 'deep'] as const;
// Frames per (size, zoom), drawn in rounds that cycle through the sizes, so a burst of load
// on this shared machine lands on every size alike and the ratios stay fair.
const rounds = 24;
/** Rounds of wheel frames (each paints every strip again, as a pan does not). */
const zoomRounds = 12;
const framesPerRound = 10;
const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

interface FrameBatch {
  readonly timesMs: number[];
  readonly firstMs: number;
  readonly rects: number;
  readonly drawnOps: number;
  readonly labels: number;
  readonly lodNs: number;
}

/** timeline-page's `window.bench` (page.ts), as seen from node. */
interface BenchApi {
  load(opCount: number): { opCount: number; spanNs: number; loadMs: number };
  frames(zoom: string, count: number, firstFrame: number, motion: string): FrameBatch;
}

/** The page's global, typed (inlined in each evaluate: the function's source runs in the page). */
type PageGlobal = { bench: BenchApi };

interface EsbuildLike {
  build(options: Record<string, unknown>): Promise<unknown>;
}

/** esbuild from the scripts package, else from the workspace packages that already depend on it. */
async function loadEsbuild(): Promise<EsbuildLike> {
  for (const from of ['scripts', 'apps/server', 'apps/web']) {
    try {
      const resolved = createRequire(path.join(repoRoot, from, 'package.json')).resolve('esbuild');
      return (await import(pathToFileURL(resolved).href)) as EsbuildLike;
    } catch {
      // try the next place
    }
  }
  throw new Error('esbuild is not installed in the workspace (pnpm install)');
}

async function bundlePage(outDir: string): Promise<void> {
  const esbuild = await loadEsbuild();
  await esbuild.build({
    entryPoints: [path.join(here, 'timeline-page', 'page.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    outfile: path.join(outDir, 'page.js'),
    logLevel: 'warning',
  });
  await writeFile(
    path.join(outDir, 'index.html'),
    await readFile(path.join(here, 'timeline-page', 'index.html')),
  );
}

/** Serves `dir` on 127.0.0.1 (an ephemeral port); resolves to its base URL and a closer. */
async function serve(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };
  const server = createServer((request, response) => {
    const name = path.basename(new URL(request.url ?? '/', 'http://x').pathname) || 'index.html';
    readFile(path.join(dir, name))
      .then((body) => {
        // Cross-origin isolation gives performance.now() µs resolution instead of 100 µs.
        response.writeHead(200, {
          'content-type': types[path.extname(name)] ?? 'text/plain',
          'cross-origin-opener-policy': 'same-origin',
          'cross-origin-embedder-policy': 'require-corp',
        });
        response.end(body);
      })
      .catch(() => {
        response.writeHead(404);
        response.end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/index.html`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** JS heap plus ArrayBuffer backing stores of the page, after a full GC (bytes). */
async function pageBytes(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const usage = (await cdp.send('Runtime.getHeapUsage')) as {
    usedSize: number;
    backingStorageSize?: number;
    embedderHeapUsedSize?: number;
  };
  await cdp.detach();
  return usage.usedSize + (usage.backingStorageSize ?? 0) + (usage.embedderHeapUsedSize ?? 0);
}

export async function run(report: Report): Promise<void> {
  const outDir = await mkdtemp(path.join(tmpdir(), 'timeline-bench-'));
  const server = await bundlePage(outDir).then(() => serve(outDir));
  const browser = await chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: chromiumFlags,
  });
  try {
    const medians = new Map<string, number>();
    const pages: { size: (typeof sizes)[number]; page: Page }[] = [];
    for (const size of sizes) {
      // A page per size, so memory and caches do not mix.
      const page = await browser.newPage({
        viewport: { width: 1600, height: 900 },
        deviceScaleFactor: 1,
      });
      await page.goto(server.url);
      await page.waitForSelector('body[data-ready="true"]');
      const before = await pageBytes(page);
      const loaded = await page.evaluate(
        (ops) => (globalThis as unknown as PageGlobal).bench.load(ops),
        size.ops,
      );
      if (size.ops === 5_000_000) {
        const after = await pageBytes(page);
        report('timeline.page_bytes_per_op', (after - before) / loaded.opCount, 'B');
      }
      process.stderr.write(`timeline ${size.label}: built in ${loaded.loadMs.toFixed(0)} ms\n`);
      pages.push({ size, page });
    }
    const batch = (page: Page, zoom: string, count: number, firstFrame: number, motion: string) =>
      page.evaluate(
        ([z, n, f, m]) => (globalThis as unknown as PageGlobal).bench.frames(z, n, f, m),
        [zoom, count, firstFrame, motion] as const,
      );
    /**
     * Frame times per size over `roundCount` rounds (each draws every size a moment apart), and
     * the median over rounds of the 1m/1k ratio of the round's medians.
     */
    const measure = async (zoom: string, motion: string, roundCount: number) => {
      const times = new Map<string, number[]>();
      const roundMedians = new Map<string, number[]>();
      for (let r = 0; r < roundCount; r++) {
        for (const { size, page } of pages) {
          const result = await batch(page, zoom, framesPerRound, 1 + r * framesPerRound, motion);
          times.set(size.label, [...(times.get(size.label) ?? []), ...result.timesMs]);
          const sortedBatch = [...result.timesMs].sort((x, y) => x - y);
          const batchMedians = roundMedians.get(size.label) ?? [];
          batchMedians.push(sortedBatch[Math.floor(sortedBatch.length / 2)] ?? 0);
          roundMedians.set(size.label, batchMedians);
        }
      }
      const big = roundMedians.get('1m') ?? [];
      const small = roundMedians.get('1k') ?? [];
      const ratios = big.map((ms, r) => ms / Math.max(1e-3, small[r] ?? 0)).sort((x, y) => x - y);
      return { times, pairedRatio: ratios[Math.floor(ratios.length / 2)] ?? 0 };
    };
    const median = (values: number[]) =>
      [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;
    const pairedRatios = new Map<string, number>();
    const zoomMedians = new Map<string, number>();
    const zoomRatios = new Map<string, number>();
    for (const zoom of zooms) {
      const firsts = new Map<string, FrameBatch>();
      for (const { size, page } of pages) {
        firsts.set(size.label, await batch(page, zoom, 0, 0, 'pan'));
      }
      const panned = await measure(zoom, 'pan', rounds);
      for (const { size } of pages) {
        const sorted = panned.times.get(size.label)!.sort((x, y) => x - y);
        const medianMs = median(sorted);
        const p95Ms = sorted[Math.floor(sorted.length * 0.95)] ?? 0;
        const first = firsts.get(size.label)!;
        medians.set(`${size.label}_${zoom}`, medianMs);
        report(`timeline.frame_ms_${size.label}_${zoom}`, medianMs, 'ms');
        report(`timeline.first_frame_ms_${size.label}_${zoom}`, first.firstMs, 'ms');
        process.stderr.write(
          `timeline ${size.label} ${zoom}: median ${medianMs.toFixed(2)} ms, p95 ${p95Ms.toFixed(2)} ms ` +
            `over ${sorted.length} frames, first ${first.firstMs.toFixed(1)} ms, ${first.rects} rects, ` +
            `${first.drawnOps} ops drawn, ${first.labels} labels, lod ${first.lodNs} ns\n`,
        );
      }
      pairedRatios.set(zoom, panned.pairedRatio);
      // Wheel frames: the scale changes every frame, so every strip is painted again.
      const zoomed = await measure(zoom, 'zoom', zoomRounds);
      for (const { size } of pages) {
        const medianMs = median(zoomed.times.get(size.label)!);
        zoomMedians.set(`${size.label}_${zoom}`, medianMs);
        report(`timeline.zoom_frame_ms_${size.label}_${zoom}`, medianMs, 'ms');
      }
      zoomRatios.set(zoom, zoomed.pairedRatio);
    }
    for (const { page } of pages) {
      await page.close();
    }
    for (const zoom of zooms) {
      const ratio =
        (medians.get(`1m_${zoom}`) ?? 0) / Math.max(1e-3, medians.get(`1k_${zoom}`) ?? 0);
      report(`timeline.frame_ratio_1m_vs_1k_${zoom}`, ratio, 'x');
      // The same ratio taken round by round (each round draws every size a moment apart), then
      // its median: steadier than the ratio of medians when the machine's load drifts.
      report(`timeline.frame_ratio_paired_1m_vs_1k_${zoom}`, pairedRatios.get(zoom) ?? 0, 'x');
      const zoomRatio =
        (zoomMedians.get(`1m_${zoom}`) ?? 0) / Math.max(1e-3, zoomMedians.get(`1k_${zoom}`) ?? 0);
      report(`timeline.zoom_frame_ratio_1m_vs_1k_${zoom}`, zoomRatio, 'x');
      report(`timeline.zoom_frame_ratio_paired_1m_vs_1k_${zoom}`, zoomRatios.get(zoom) ?? 0, 'x');
    }
    // The machine's load while measuring: frame times on a busy 2-core host are noisy.
    report('timeline.load_average_1min', os.loadavg()[0] ?? 0, '');
  } finally {
    await browser.close();
    await server.close();
    await rm(outDir, { recursive: true, force: true });
  }
}
