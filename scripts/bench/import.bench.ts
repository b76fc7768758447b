import { readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { importTrace } from '@streamscope/importers';
import { syntheticKinetoTrace } from './kineto-synth.ts';
import type { Report } from './report.ts';
import { median } from './report.ts';

// Real exports of one run of ~24,000 kernels on two streams (nsys 2025.3.1 on an H100,
// scripts/gpu-record/many.py), JSON and SQLite. Inflated here, outside every timing.
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '../../fixtures/nsys/2025.3.1');
const runs = 9;

// Times are this process's CPU time (user + system), not wall time: the build machine is
// shared, and other work there stretches wall time unevenly. No forced GC between runs: a
// forced full GC made the next import 3-5x slower (V8 drops optimized code), which would flatter
// nothing but distort everything. The naive readings' garbage may be collected inside the fast
// import's time, which only counts against it.

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function medianAsyncMs(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = cpuMs();
    await fn();
    times.push(cpuMs() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Bare JSON.parse of every line, with no import work at all: a floor for any JSON.parse reader. */
function parseOnly(bytes: Uint8Array): number {
  const text = new TextDecoder().decode(bytes);
  let events = 0;
  for (const line of text.split('\n')) {
    if (line !== '') {
      const value = JSON.parse(line) as { Type?: unknown };
      if (value.Type !== undefined) {
        events++;
      }
    }
  }
  return events;
}

async function timeMs(fn: () => unknown): Promise<number> {
  const t0 = cpuMs();
  await fn();
  return cpuMs() - t0;
}

/** Bare JSON.parse of a whole Chrome trace, with no import work at all: a floor for any reader. */
function parseChromeOnly(bytes: Uint8Array): number {
  const value = JSON.parse(new TextDecoder().decode(bytes)) as { traceEvents: unknown[] };
  return value.traceEvents.length;
}

/**
 * Kineto traces of 20,000 steps (~27 MB): one with timestamps relative to baseTimeNanoseconds
 * (~4.5e12 µs), one in µs since 1970 (~1.7e15 µs, the size where a double keeps only 0.25 µs).
 * The importer and a bare JSON.parse of the same bytes, interleaved so that load hits both alike.
 */
async function kineto(report: Report): Promise<void> {
  const steps = 20_000;
  const relative = syntheticKinetoTrace(steps, 4_460_266_242_802);
  const epoch = syntheticKinetoTrace(steps, 1_700_000_000_000_000);
  const importer = (bytes: Uint8Array) => (): Promise<unknown> =>
    importTrace(bytes, { fileName: 'bench.pt.trace.json' });
  const times = { relative: [] as number[], epoch: [] as number[], parse: [] as number[] };
  await importer(relative)();
  await importer(epoch)();
  parseChromeOnly(relative);
  for (let i = 0; i < runs; i++) {
    times.relative.push(await timeMs(importer(relative)));
    times.epoch.push(await timeMs(importer(epoch)));
    times.parse.push(await timeMs(() => parseChromeOnly(relative)));
  }
  const relativeMs = median(times.relative);
  report('import.kineto_mb_per_s', relative.length / 1e6 / (relativeMs / 1000), 'MB/s');
  report(
    'import.kineto_epoch_us_mb_per_s',
    epoch.length / 1e6 / (median(times.epoch) / 1000),
    'MB/s (ts in µs since 1970)',
  );
  report(
    'import.kineto_vs_naive',
    median(times.parse) / relativeMs,
    'x (JSON.parse of the whole file, no import ÷ import)',
  );
}

export async function run(report: Report): Promise<void> {
  await kineto(report);
  const json = new Uint8Array(gunzipSync(readFileSync(path.join(fixtures, 'many.json.gz'))));
  const sqlite = new Uint8Array(gunzipSync(readFileSync(path.join(fixtures, 'many.sqlite.gz'))));
  // The three readings interleaved, so that load on the machine hits them alike: the fast import,
  // the importer reading each line with JSON.parse (same trace built, see nsysJsonReader), and
  // bare JSON.parse of every line.
  const fast: number[] = [];
  const naive: number[] = [];
  const parse: number[] = [];
  const importFast = (): Promise<unknown> => importTrace(json, { fileName: 'many.json' });
  const importNaive = (): Promise<unknown> =>
    importTrace(json, { fileName: 'many.json', nsysJsonReader: 'json-parse' });
  await importFast();
  await importNaive();
  parseOnly(json);
  for (let i = 0; i < runs; i++) {
    fast.push(await timeMs(importFast));
    naive.push(await timeMs(importNaive));
    parse.push(await timeMs(() => parseOnly(json)));
  }
  const fastMs = median(fast);
  // The target figure: a naive line-by-line JSON.parse of the file, doing no import work at all,
  // against the whole fast import (trace built). Then the same importer reading each line with
  // JSON.parse, so that both sides build the same trace.
  report(
    'import.nsys_json_vs_naive',
    median(parse) / fastMs,
    'x (JSON.parse of every line, no import ÷ fast import)',
  );
  report(
    'import.nsys_json_vs_json_parse_importer',
    median(naive) / fastMs,
    'x (importer with JSON.parse per line ÷ fast import)',
  );
  report('import.nsys_json_ms', fastMs, 'ms (CPU)');
  report('import.nsys_json_mb_per_s', json.length / 1e6 / (fastMs / 1000), 'MB/s');
  const sqliteMs = await medianAsyncMs(() => importTrace(sqlite, { fileName: 'many.sqlite' }));
  report('import.nsys_sqlite_s', sqliteMs / 1000, 's (CPU)');
}
