import { statSync } from 'node:fs';
import { SqliteFile, bytesAsRandomAccess } from '@streamscope/importers';
import type { Generated } from './gen-nsys-json.ts';
import type { StoredValue } from './sqlite-writer.ts';
import { SqliteWriter } from './sqlite-writer.ts';

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
 * repeated until `gpuOps` GPU ops (times past the previous copy's span, correlation and event
 * sync ids past the previous copy's largest), every other table once. Written page by page.
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
  let minNs = Infinity;
  let maxNs = 0;
  let maxCorr = 0;
  let maxSyncId = 0;
  let perCopy = 0;
  const names = db.tableNames();
  for (const name of names.filter((n) => repeated.has(n))) {
    const table = db.table(name)!;
    for (const { values } of rowsOf(name)) {
      table.columns.forEach((column, i) => {
        const v = values[i];
        if (typeof v !== 'number') {
          return;
        }
        if (timeColumns.has(column) && v > 0) {
          minNs = Math.min(minNs, v);
          maxNs = Math.max(maxNs, v);
        } else if (column === 'correlationId') {
          maxCorr = Math.max(maxCorr, v);
        } else if (column === 'eventSyncId') {
          maxSyncId = Math.max(maxSyncId, v);
        }
      });
      if (gpuTables.includes(name)) {
        perCopy++;
      }
    }
  }
  if (perCopy === 0) {
    throw new Error('the template has no GPU ops to repeat');
  }
  const copies = Math.ceil(gpuOps / perCopy);
  const spanNs = maxNs - minNs + 1000;
  const out = new SqliteWriter(outPath);
  for (const name of names) {
    const table = db.table(name)!;
    const rows = rowsOf(name);
    const sql = `CREATE TABLE "${name}" (${table.columns.map((c, i) => `"${c}"${i === table.rowidColumn ? ' INTEGER PRIMARY KEY' : ''}`).join(', ')})`;
    if (!repeated.has(name)) {
      out.table(
        name,
        sql,
        rows.map((r): [number, StoredValue[]] => [r.rowid, r.values]),
      );
      continue;
    }
    const kinds = table.columns.map((c) =>
      timeColumns.has(c) ? 1 : c === 'correlationId' ? 2 : c === 'eventSyncId' ? 3 : 0,
    );
    function* shifted(): Generator<[number, StoredValue[]]> {
      let rowid = 0;
      const values: StoredValue[] = [];
      for (let c = 0; c < copies; c++) {
        const shift = [0, c * spanNs, c * (maxCorr + 1), c * (maxSyncId + 1)];
        for (const row of rows) {
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
  return { gpuOps: copies * perCopy, copies, bytes: statSync(outPath).size };
}
