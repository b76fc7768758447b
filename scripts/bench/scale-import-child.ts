import { createReadStream, readFileSync, statSync } from 'node:fs';
import process from 'node:process';
import { createInterface } from 'node:readline';
import {
  SqliteFile,
  chromeTraceReadFloor,
  importTrace,
  loadSqlJs,
  nsysJsonReadFloor,
  sqliteReadFloor,
} from '@streamscope/importers';
import type { Trace } from '@streamscope/trace';
import { saveTrace } from '@streamscope/trace';
import { openRandomAccess, streamOf } from '@streamscope/importers/node';

// One measurement of `pnpm bench scale` in a fresh process, so that its peak RSS (VmHWM) is its
// own: `import FILE` imports an export (SQLite read from disk page by page, JSON streamed);
// `json-parse FILE` is the JSON baseline, a streaming JSON.parse of each event (one per line in
// the generated files); `sqlite-scan FILE` is the SQLite baseline, a SELECT * of every table the
// importer reads through the same reader (every column of every row decoded to a value, each
// row handed out as an array of its own, as an engine's step loop does); `sqlite-floor FILE` is
// the import's own scans with no row handled (what reading alone costs it); `nsys-json-floor
// FILE` is the nsys JSON import's own reading (lines cut and scanned as it reads them) with no
// event handled and no trace built; `kineto-floor FILE` is the same for a Chrome/kineto trace
// (events cut and scanned as the import reads them, none handled). Prints one JSON line of figures.

const [mode, file] = process.argv.slice(2) as [string, string];

/** The JSON imports' reading alone, by mode. */
const jsonReadFloors: Record<string, (chunks: AsyncIterable<Uint8Array>) => Promise<number>> = {
  'nsys-json-floor': nsysJsonReadFloor,
  'kineto-floor': chromeTraceReadFloor,
};

function hwmBytes(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m === null ? Number.NaN : Number(m[1]) * 1024;
}

const tables = [
  'StringIds',
  'CUPTI_ACTIVITY_KIND_KERNEL',
  'CUPTI_ACTIVITY_KIND_MEMCPY',
  'CUPTI_ACTIVITY_KIND_MEMSET',
  'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION',
  'CUPTI_ACTIVITY_KIND_CUDA_EVENT',
  'CUPTI_ACTIVITY_KIND_GRAPH_TRACE',
  'CUPTI_ACTIVITY_KIND_RUNTIME',
  'NVTX_EVENTS',
  'ENUM_CUPTI_SYNC_TYPE',
  'ThreadNames',
  'PROCESSES',
  'TARGET_INFO_CUDA_STREAM',
  'TARGET_INFO_CUDA_CONTEXT_INFO',
  'TARGET_INFO_GPU',
  'TARGET_INFO_CUDA_GPU',
  'META_DATA_EXPORT',
  'TARGET_INFO_SESSION_START_TIME',
];

async function measure(): Promise<Record<string, number>> {
  if (mode === 'import') {
    const sqlite = file.endsWith('.sqlite');
    // As the server and the CLI read: SQLite page by page; anything else streamed in 1 MiB
    // chunks (streamOf: two buffers in turn), its size given so that the staging is sized as
    // the file is read.
    const handle = sqlite ? openRandomAccess(file) : undefined;
    try {
      const { trace } = await importTrace(handle ?? streamOf(file), {
        fileName: file,
        maxBytes: 2 ** 52,
        totalBytes: statSync(file).size,
      });
      kept = trace;
      return { ops: trace.ops.count };
    } finally {
      handle?.close();
    }
  }
  if (mode === 'json-parse') {
    let events = 0;
    const lines = createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }) });
    for await (const raw of lines) {
      const line = raw.endsWith(',') ? raw.slice(0, -1) : raw;
      // A whole event (the kineto header line is an open object and is skipped).
      if (line.startsWith('{') && line.endsWith('}')) {
        const value = JSON.parse(line) as unknown;
        if (typeof value === 'object' && value !== null) {
          events++;
        }
      }
    }
    return { events };
  }
  if (mode === 'sqlite-scan') {
    const handle = openRandomAccess(file);
    try {
      const db = new SqliteFile(handle);
      let rows = 0;
      let cells = 0;
      for (const name of tables) {
        const table = db.table(name);
        if (table === undefined) {
          continue;
        }
        // As SELECT * hands rows out: each row's values in an array of its own.
        db.scan(
          table,
          table.columns.map((_, i) => i),
          (slots) => {
            const row = slots.values.slice();
            rows++;
            for (const v of row) {
              if (v !== null) {
                cells++;
              }
            }
          },
        );
      }
      return { rows, cells };
    } finally {
      handle.close();
    }
  }
  if (mode === 'sqlite-floor') {
    const handle = openRandomAccess(file);
    try {
      return { rows: await sqliteReadFloor(handle) };
    } finally {
      handle.close();
    }
  }
  const jsonFloor = jsonReadFloors[mode];
  if (jsonFloor !== undefined) {
    const events = await jsonFloor(streamOf(file));
    return { events };
  }
  if (mode === 'sqljs-select') {
    // The engine the importer used before: SELECT * of the same tables through sql.js (the
    // database read into memory first, outside the timing).
    const SQL = await loadSqlJs();
    const db = new SQL.Database(readFileSync(file));
    const cpuStart = process.cpuUsage();
    let rows = 0;
    for (const name of tables) {
      const exists = db.exec(
        `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${name}'`,
      );
      if (exists.length === 0) {
        continue;
      }
      const stmt = db.prepare(`SELECT * FROM "${name}"`);
      while (stmt.step()) {
        if (stmt.get().length > 0) {
          rows++;
        }
      }
      stmt.free();
    }
    const cpu = process.cpuUsage(cpuStart);
    db.close();
    return { rows, selectCpuS: (cpu.user + cpu.system) / 1e6 };
  }
  throw new Error(`unknown mode ${mode}`);
}

let kept: Trace | undefined;
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
const figures = await measure();
const cpu = process.cpuUsage(cpu0);
process.stdout.write(
  `${JSON.stringify({
    ...figures,
    cpuS: (cpu.user + cpu.system) / 1e6,
    wallS: (performance.now() - wall0) / 1000,
    hwmBytes: hwmBytes(),
    // The imported trace's own size, after the timing: its .sstrace bytes.
    ...(kept === undefined
      ? {}
      : {
          traceBytes: saveTrace(kept).length,
          // The op table in memory: the sum of its typed columns.
          opColumnBytes: Object.values(kept.ops.columns()).reduce(
            (sum: number, c: unknown) => sum + (ArrayBuffer.isView(c) ? c.byteLength : 0),
            0,
          ),
        }),
  })}\n`,
);
