import type initSqlJs from 'sql.js';
import { ImportError } from '../import-error.ts';

type Database = initSqlJs.Database;

/** Table and column lookups over an nsys SQLite export whose schema varies by version. */
export class SqliteTables {
  private readonly tables: Set<string>;
  private readonly columnCache = new Map<string, Set<string>>();

  constructor(
    private readonly db: Database,
    private readonly file: string,
  ) {
    this.tables = new Set(this.strings("SELECT name FROM sqlite_master WHERE type = 'table'"));
  }

  has(table: string): boolean {
    return this.tables.has(table);
  }

  /** The first of `names` that exists. */
  firstOf(...names: string[]): string | undefined {
    return names.find((name) => this.tables.has(name));
  }

  columns(table: string): Set<string> {
    let found = this.columnCache.get(table);
    if (found === undefined) {
      found = new Set<string>();
      const stmt = this.db.prepare(`PRAGMA table_info("${table}")`);
      try {
        while (stmt.step()) {
          found.add(String(stmt.get()[1]));
        }
      } finally {
        stmt.free();
      }
      this.columnCache.set(table, found);
    }
    return found;
  }

  /** Fails with the table and column when a required column is missing. */
  requireColumns(table: string, columns: readonly string[]): void {
    const have = this.columns(table);
    for (const column of columns) {
      if (!have.has(column)) {
        throw new ImportError(
          { file: this.file, table, field: column },
          `the column is missing from ${table}`,
        );
      }
    }
  }

  /** An expression for `column`, or `fallback` (SQL) when this schema lacks it. */
  col(table: string, column: string, fallback = 'NULL'): string {
    return this.columns(table).has(column) ? `"${column}"` : fallback;
  }

  /** Runs `sql` and calls `row` with each row's values (one reused array per row). */
  each(sql: string, table: string, row: (values: initSqlJs.SqlValue[]) => void): number {
    let stmt: initSqlJs.Statement;
    try {
      stmt = this.db.prepare(sql);
    } catch (error) {
      throw new ImportError(
        { file: this.file, table },
        `cannot read the table (${describe(error)})`,
      );
    }
    let n = 0;
    try {
      while (stepOrThrow(stmt, this.file, table)) {
        row(stmt.get());
        n++;
      }
    } finally {
      stmt.free();
    }
    return n;
  }

  strings(sql: string): string[] {
    const out: string[] = [];
    const stmt = this.db.prepare(sql);
    try {
      while (stmt.step()) {
        out.push(String(stmt.get()[0]));
      }
    } finally {
      stmt.free();
    }
    return out;
  }
}

function stepOrThrow(stmt: initSqlJs.Statement, file: string, table: string): boolean {
  try {
    return stmt.step();
  } catch (error) {
    throw new ImportError({ file, table }, `the database is damaged (${describe(error)})`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
