import { statSync } from 'node:fs';
import { SqliteFile, bytesAsRandomAccess } from '@streamscope/importers';
import type { Generated } from './gen-nsys-json.ts';
import type { StoredValue } from './sqlite-writer.ts';
import { SqliteWriter } from './sqlite-writer.ts';
import { IdleStart, planReplicas } from './replica-plan.ts';

const gpuTables = [
  'CUPTI_ACTIVITY_KIND_KERNEL',
  'CUPTI_ACTIVITY_KIND_MEMCPY',
  'CUPTI_ACTIVITY_KIND_MEMSET',
  'CUPTI_ACTIVITY_KIND_GRAPH_TRACE',
];
const repeated = new Set([
  ...gpuTables,
  'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION',
  'CUPTI_ACTIVITY_KIND_CUDA_EVENT',
  'CUPTI_ACTIVITY_KIND_RUNTIME',
  'NVTX_EVENTS',
]);
const timeColumns = new Set(['start', 'end', 'timestamp']);

/**
 * An nsys SQLite export made of `template`'s tables: the activity, runtime and NVTX tables
 * repeated until `gpuOps` GPU ops, every other table once. The recording's idle start is written
 * once (replica-plan.ts) and its busy part repeated back to back: each copy's times move past the
 * previous copy's busy part, its correlation and event sync ids past the template's largest.
 * Written page by page.
 */
export function generateNsysSqlite(
  template: Uint8Array,
  gpuOps: number,
  outPath: string,
): Generated {
  const db = new SqliteFile(bytesAsRandomAccess(template));
  const rowsOf = (name: string): { rowid: number; values: StoredValue[] }[] => {
    const table = db.table(name)!;
    const rows: { rowid: number; values: StoredValue[] }[] = [];
    db.scan(
      table,
      table.columns.map((_, i) => i),
      (slots, rowid) => {
        const values = slots.values.map((v) => (v instanceof Uint8Array ? null : v));
        if (table.rowidColumn >= 0) {
          values[table.rowidColumn] = null; // the rowid is the INTEGER PRIMARY KEY
        }
        rows.push({ rowid, values });
      },
    );
    return rows;
  };
  // Each repeated table's rows, with the row's first time and correlation id (0 where none).
  const tables = new Map<
    string,
    { rows: ReturnType<typeof rowsOf>; startNs: number[]; corr: number[] }
  >();
  const intervals: [number, number][] = [];
  let maxCorr = 0;
  let maxSyncId = 0;
  const names = db.tableNames();
  for (const name of names.filter((n) => repeated.has(n))) {
    const table = db.table(name)!;
    const rows = rowsOf(name);
    const entry = { rows, startNs: [] as number[], corr: [] as number[] };
    for (const { values } of rows) {
      let firstNs = 0;
      let lastNs = 0;
      let corr = 0;
      table.columns.forEach((column, i) => {
        const v = values[i];
        if (typeof v !== 'number') {
          return;
        }
        if (timeColumns.has(column) && v > 0) {
          firstNs = firstNs === 0 ? v : Math.min(firstNs, v);
          lastNs = Math.max(lastNs, v);
        } else if (column === 'correlationId') {
          corr = v;
          maxCorr = Math.max(maxCorr, v);
        } else if (column === 'eventSyncId') {
          maxSyncId = Math.max(maxSyncId, v);
        }
      });
      intervals.push([firstNs, lastNs]);
      entry.startNs.push(firstNs);
      entry.corr.push(corr);
    }
    tables.set(name, entry);
  }
  const plan = planReplicas(intervals, pushPopRanges(db));
  const idleStart = new IdleStart(plan);
  for (const { startNs, corr } of tables.values()) {
    startNs.forEach((ns, i) => idleStart.note(ns, corr[i]!));
  }
  let onceGpuOps = 0;
  let perCopy = 0;
  for (const name of gpuTables) {
    const entry = tables.get(name);
    entry?.startNs.forEach((ns, i) => {
      if (idleStart.has(ns, entry.corr[i]!)) {
        onceGpuOps++;
      } else {
        perCopy++;
      }
    });
  }
  if (perCopy === 0) {
    throw new Error('the template has no GPU ops to repeat');
  }
  const copies = Math.max(1, Math.ceil((gpuOps - onceGpuOps) / perCopy));
  const out = new SqliteWriter(outPath);
  for (const name of names) {
    const table = db.table(name)!;
    const sql = `CREATE TABLE "${name}" (${table.columns.map((c, i) => `"${c}"${i === table.rowidColumn ? ' INTEGER PRIMARY KEY' : ''}`).join(', ')})`;
    const entry = tables.get(name);
    if (entry === undefined) {
      out.table(
        name,
        sql,
        rowsOf(name).map((r): [number, StoredValue[]] => [r.rowid, r.values]),
      );
      continue;
    }
    const kinds = table.columns.map((c) =>
      timeColumns.has(c) ? 1 : c === 'correlationId' ? 2 : c === 'eventSyncId' ? 3 : 0,
    );
    const { rows, startNs, corr } = entry;
    function* shifted(): Generator<[number, StoredValue[]]> {
      let rowid = 0;
      const values: StoredValue[] = [];
      for (let c = 0; c < copies; c++) {
        const shift = [0, c * plan.strideNs, c * (maxCorr + 1), c * (maxSyncId + 1)];
        for (const [r, row] of rows.entries()) {
          if (c > 0 && idleStart.has(startNs[r]!, corr[r]!)) {
            continue;
          }
          for (let i = 0; i < row.values.length; i++) {
            const v = row.values[i]!;
            // Zero times (untimed event records) and ids (no call) stay zero.
            values[i] = typeof v === 'number' && v !== 0 ? v + shift[kinds[i]!]! : v;
          }
          values.length = row.values.length;
          yield [++rowid, values];
        }
      }
    }
    out.table(name, sql, shifted());
  }
  out.close();
  return { gpuOps: onceGpuOps + copies * perCopy, copies, bytes: statSync(outPath).size };
}

/** NVTX push/pop ranges (eventType 59): start and end ns, the steps a warm-up is told by. */
function pushPopRanges(db: SqliteFile): [number, number][] {
  const table = db.table('NVTX_EVENTS');
  if (table === undefined) {
    return [];
  }
  const at = ['start', 'end', 'eventType'].map((c) => table.columns.indexOf(c));
  if (at.includes(-1)) {
    return [];
  }
  const ranges: [number, number][] = [];
  db.scan(table, at, (slots) => {
    const [startNs, endNs, type] = slots.values;
    if (type === 59 && typeof startNs === 'number' && typeof endNs === 'number') {
      ranges.push([startNs, endNs]);
    }
  });
  return ranges;
}
