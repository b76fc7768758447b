import { readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { importTrace } from '@streamscope/importers';
import type { Report } from './report.ts';

// Real exports of one run of ~24,000 kernels on two streams (nsys 2025.3.1 on an H100,
// scripts/gpu-record/many.py), JSON and SQLite. Inflated here, outside every timing.
const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '../../fixtures/nsys/2025.3.1');
const runs = 9;

// A full collection before each timed run, so that one reading's garbage is not collected
// inside the next one's timing. Times are this process's CPU time (user + system), not wall
// time: the build machine is shared, and other work there stretches wall time unevenly.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function medianAsyncMs(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    collectGarbage();
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

export async function run(report: Report): Promise<void> {
  const json = new Uint8Array(gunzipSync(readFileSync(path.join(fixtures, 'many.json.gz'))));
  const sqlite = new Uint8Array(gunzipSync(readFileSync(path.join(fixtures, 'many.sqlite.gz'))));
  // The three readings interleaved, so that load on the machine hits them alike. "Naive" is the
  // importer reading each line with JSON.parse (same trace built, see nsysJsonReader).
  const fast: number[] = [];
  const naive: number[] = [];
  const parse: number[] = [];
  const timeMs = async (fn: () => unknown): Promise<number> => {
    collectGarbage();
    const t0 = cpuMs();
    await fn();
    return cpuMs() - t0;
  };
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
  const median = (xs: number[]): number =>
    [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const fastMs = median(fast);
  report(
    'import.nsys_json_vs_naive',
    median(naive) / fastMs,
    'x (JSON.parse-per-line importer ÷ fast importer)',
  );
  report(
    'import.nsys_json_vs_parse_only',
    median(parse) / fastMs,
    'x (bare JSON.parse of each line, no import ÷ fast importer)',
  );
  report('import.nsys_json_ms', fastMs, 'ms (CPU)');
  report('import.nsys_json_mb_per_s', json.length / 1e6 / (fastMs / 1000), 'MB/s');
  const sqliteMs = await medianAsyncMs(() => importTrace(sqlite, { fileName: 'many.sqlite' }));
  report('import.nsys_sqlite_s', sqliteMs / 1000, 's (CPU)');
}
