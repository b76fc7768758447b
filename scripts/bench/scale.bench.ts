import { spawn } from 'node:child_process';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { freshBundle, serverBundlesDir } from '../../apps/server/scripts/bundle-cache.mjs';
import { bundleEntry, copySqlWasm } from '../../apps/server/scripts/node-bundle-options.mjs';
import type { GenFormat } from '../gen/main.ts';
import { generate } from '../gen/main.ts';
import type { Report } from './report.ts';
import { median } from './report.ts';

// `pnpm bench scale [--big]`: imports of generated realistic exports (scripts/gen: a recorded
// training run — kernels, copies, memsets, API calls, syncs, event records, NVTX — repeated with
// shifted times and ids) at 100k GPU ops, or 1M and 5M with --big (20M with --huge). For each
// format, each measurement in a fresh child process (scale-import-child.ts, bundled):
//  - import.<format>_s_per_1m_gpu_ops: CPU seconds (user + system) per million GPU ops;
//  - import.<format>_peak_rss_mb_per_1m_gpu_ops: the child's VmHWM per million GPU ops;
//  - import.nsys_json_vs_json_parse, import.kineto_vs_json_parse: the importer's MB/s over a
//    streaming per-event JSON.parse of the same file (the baseline's CPU time over the import's);
//  - import.sqlite_vs_scan: the same over SELECT * of the tables the importer reads through the
//    same page reader (every column of every row decoded to a value, a fresh array per row);
//  - import.nsys_json_floor_vs_json_parse: that baseline over the nsys JSON import's own reading
//    (every line cut and scanned as the import reads it) with no event handled and no trace built:
//    the most import.nsys_json_vs_json_parse could be if handling events and building cost nothing;
//  - import.kineto_floor_vs_json_parse: the same for the kineto import's own reading (every event
//    cut and scanned as the import reads it, none handled, nothing built);
//  - import.sqlite_floor_vs_scan: that baseline over the import's own scans with no row handled
//    (the columns it needs, decoded to typed slots): the most import.sqlite_vs_scan could be if
//    building the trace cost nothing;
//  - import.sqlite_vs_sqljs_select: the same over SELECT * of those tables through sql.js, the
//    engine SQLite imports used before (up to 1M GPU ops: sql.js holds the whole database);
//  - import.<format>_peak_vs_op_columns: peak RSS over the imported op table's typed columns;
//  - import.nsys_sqlite_peak_vs_trace: the SQLite import's peak RSS over the imported trace's
//    own size (its .sstrace bytes), and import.nsys_sqlite_peak_vs_file over the export's size.
// `--format nsys-json` (or kineto, nsys-sqlite) measures that format alone; `--gpu-ops N` one size;
// `--repeat N` measures each import and its baseline N times in turn and prints the medians (the
// ratio's median of the pairs' ratios, and `_least` their least; the peak is the largest).
// CPU time, not wall time: the machine may be shared. Other scale figures (tiles, timeline)
// live in scale-*.bench.ts files beside this one; `pnpm bench scale` runs them all.

const here = path.dirname(fileURLToPath(import.meta.url));
const serverRoot = path.join(here, '..', '..', 'apps', 'server');
const big = process.argv.includes('--big');
const huge = process.argv.includes('--huge');
const sizeArg = process.argv.indexOf('--gpu-ops');
const sizes =
  sizeArg >= 0
    ? [Number(process.argv[sizeArg + 1])]
    : huge
      ? [20_000_000]
      : big
        ? [1_000_000, 5_000_000]
        : [100_000];
const formatArg = process.argv.indexOf('--format');
const onlyFormat = formatArg < 0 ? undefined : process.argv[formatArg + 1];
const repeatArg = process.argv.indexOf('--repeat');
/** Import and baseline measured this many times in turn; figures are the medians. */
const repeat = repeatArg < 0 ? 1 : Math.max(1, Math.floor(Number(process.argv[repeatArg + 1])));

interface ChildFigures {
  readonly cpuS: number;
  readonly wallS: number;
  readonly hwmBytes: number;
  readonly traceBytes?: number;
  readonly opColumnBytes?: number;
  readonly selectCpuS?: number;
}

/**
 * The child as one esbuild bundle, kept between runs (apps/server/scripts/bundle-cache.mjs): the
 * import runs as the server's worker threads and the CLI run it, not module by module through
 * tsx (10–20% slower).
 */
async function childBundle(): Promise<string> {
  const { dir } = await freshBundle({
    bundlesDir: serverBundlesDir,
    name: 'bench-import-child',
    build: async (outDir) => [
      ...(await bundleEntry(
        esbuild,
        path.join(here, 'scale-import-child.ts'),
        path.join(outDir, 'child.mjs'),
      )),
      // For the sql.js baseline.
      copySqlWasm(serverRoot, outDir),
      fileURLToPath(import.meta.url),
    ],
  });
  return path.join(dir, 'child.mjs');
}

function runChild(child: string, mode: string, file: string): Promise<ChildFigures> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, mode, file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    proc.on('exit', (code) => {
      if (code === 0) {
        resolve(JSON.parse(out.trim().split('\n').at(-1)!) as ChildFigures);
      } else {
        reject(new Error(`${mode} ${file} exited with ${code}: ${err}`));
      }
    });
  });
}

/** Each format's baseline, ratio name, and the child mode and figure of its import's reading alone. */
const formats: {
  format: GenFormat;
  name: string;
  ext: string;
  baseline: string;
  ratio: string;
  floor: string;
  floorRatio: string;
}[] = [
  {
    format: 'nsys-json',
    name: 'nsys_json',
    ext: 'json',
    baseline: 'json-parse',
    ratio: 'nsys_json_vs_json_parse',
    floor: 'nsys-json-floor',
    floorRatio: 'nsys_json_floor_vs_json_parse',
  },
  {
    format: 'kineto',
    name: 'kineto',
    ext: 'json',
    baseline: 'json-parse',
    ratio: 'kineto_vs_json_parse',
    floor: 'kineto-floor',
    floorRatio: 'kineto_floor_vs_json_parse',
  },
  {
    format: 'nsys-sqlite',
    name: 'nsys_sqlite',
    ext: 'sqlite',
    baseline: 'sqlite-scan',
    ratio: 'sqlite_vs_scan',
    floor: 'sqlite-floor',
    floorRatio: 'sqlite_floor_vs_scan',
  },
];

export async function run(report: Report): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'scale-bench-'));
  const child = await childBundle();
  try {
    for (const size of sizes) {
      const tag = size >= 1e6 ? `${size / 1e6}m` : `${size / 1e3}k`;
      for (const { format, name, ext, baseline, ratio, floor, floorRatio } of formats) {
        if (onlyFormat !== undefined && format !== onlyFormat) {
          continue;
        }
        const file = path.join(dir, `${format}-${tag}.${ext}`);
        const generated = generate(format, size, file);
        // On disk before any child runs: its write-back would otherwise run beside the first
        // child, the import (import.kineto_vs_json_parse_1m read 1.51x so, 2.05x synced).
        const fd = openSync(file, 'r');
        fsyncSync(fd);
        closeSync(fd);
        const perM = 1e6 / generated.gpuOps;
        // The import and its baseline in turn, `repeat` times: the ratio of each pair, and the
        // median of those (and their least) when there are several; the peak is the largest.
        const imports: ChildFigures[] = [];
        const bases: ChildFigures[] = [];
        for (let k = 0; k < repeat; k++) {
          imports.push(await runChild(child, 'import', file));
          bases.push(await runChild(child, baseline, file));
        }
        const imported = imports[0]!; // its trace's sizes: the same in every run
        const importCpuS = median(imports.map((f) => f.cpuS));
        const baseCpuS = median(bases.map((f) => f.cpuS));
        const hwmBytes = Math.max(...imports.map((f) => f.hwmBytes));
        report(`import.${name}_s_per_1m_gpu_ops_${tag}`, importCpuS * perM, 's');
        report(
          `import.${name}_peak_rss_mb_per_1m_gpu_ops_${tag}`,
          (hwmBytes / 2 ** 20) * perM,
          'MB',
        );
        report(`import.${name}_file_mb_${tag}`, generated.bytes / 2 ** 20, 'MB');
        const ratios = imports.map((f, k) => bases[k]!.cpuS / f.cpuS);
        report(`import.${ratio}_${tag}`, median(ratios), 'x');
        if (repeat > 1) {
          report(`import.${ratio}_${tag}_least`, Math.min(...ratios), 'x');
        }
        const read = await runChild(child, floor, file);
        report(`import.${floorRatio}_${tag}`, baseCpuS / read.cpuS, 'x');
        if (format === 'nsys-sqlite' && size <= 1_000_000) {
          // sql.js holds the whole database: only at sizes where that fits comfortably.
          const select = await runChild(child, 'sqljs-select', file);
          report(`import.sqlite_vs_sqljs_select_${tag}`, select.selectCpuS! / importCpuS, 'x');
        }
        if (imported.opColumnBytes !== undefined) {
          report(
            `import.${name}_peak_vs_op_columns_${tag}`,
            hwmBytes / imported.opColumnBytes,
            'x',
          );
        }
        if (format === 'nsys-sqlite' && imported.traceBytes !== undefined) {
          report(`import.nsys_sqlite_peak_vs_trace_${tag}`, hwmBytes / imported.traceBytes, 'x');
          report(`import.nsys_sqlite_peak_vs_file_${tag}`, hwmBytes / generated.bytes, 'x');
        }
        await rm(file, { force: true });
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
