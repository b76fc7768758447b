import type initSqlJs from 'sql.js';
import type { ScanColumn, SqlValue, SqliteSource } from './sqlite-source.ts';
import { ScanRow, columnWidth } from './sqlite-source.ts';

/** The scans of SqliteSource as one `SELECT … FROM table` each, through sql.js (the browser's engine). */
export class SqlJsSource implements SqliteSource {
  private readonly columnCache = new Map<string, string[]>();

  constructor(private readonly db: initSqlJs.Database) {}

  tableNames(): string[] {
    const out: string[] = [];
    this.each("SELECT name FROM sqlite_master WHERE type = 'table'", (v) => {
      out.push(String(v[0]));
    });
    return out;
  }

  rowCountHint(table: string): number | undefined {
    let max: number | undefined;
    try {
      this.each(`SELECT max(rowid) FROM ${quote(table)}`, (v) => {
        max = typeof v[0] === 'number' ? v[0] : 0;
      });
    } catch {
      return undefined; // a damaged file fails with its own error in the scan
    }
    return max;
  }

  columns(table: string): string[] {
    let found = this.columnCache.get(table);
    if (found === undefined) {
      const names: string[] = [];
      this.each(`PRAGMA table_info(${quote(table)})`, (v) => {
        names.push(String(v[1]));
      });
      found = names;
      this.columnCache.set(table, found);
    }
    return found;
  }

  scan(table: string, columns: readonly ScanColumn[], row: (row: ScanRow) => boolean | void): void {
    const have = new Set(this.columns(table));
    const exprs = columns.map((c) => {
      if (!have.has(c.name)) {
        const missing =
          c.ifMissing === undefined || c.ifMissing === null ? 'NULL' : String(c.ifMissing);
        return Array<string>(columnWidth(c)).fill(missing).join(', ');
      }
      const q = quote(c.name);
      switch (c.as) {
        case 'proc':
          return `(${q} >> 48), ((${q} >> 24) & 16777215)`;
        case 'thread':
          return `(${q} >> 48), ((${q} >> 24) & 16777215), (${q} & 16777215)`;
        case 'int-text':
          return `CASE WHEN typeof(${q}) = 'integer' THEN CAST(${q} AS TEXT) END`;
        default:
          return q;
      }
    });
    const out = new ScanRow(columns.reduce((sum, c) => sum + columnWidth(c), 0));
    this.each(`SELECT ${exprs.join(', ')} FROM ${quote(table)}`, (values) => {
      for (let i = 0; i < values.length; i++) {
        out.set(i, values[i]!);
      }
      return row(out);
    });
  }

  private each(sql: string, row: (values: SqlValue[]) => boolean | void): void {
    const stmt = this.db.prepare(sql);
    try {
      while (stmt.step()) {
        if (row(stmt.get()) === false) {
          return;
        }
      }
    } finally {
      stmt.free();
    }
  }
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
