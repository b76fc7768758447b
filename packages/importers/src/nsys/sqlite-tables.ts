import { ImportError } from '../import-error.ts';
import type { ScanColumn, ScanRow, SqliteSource } from './sqlite-source.ts';

/** Table and column lookups over an nsys SQLite export whose schema varies by version. */
export class SqliteTables {
  private readonly tables: Set<string>;
  private readonly columnCache = new Map<string, Set<string>>();

  constructor(
    private readonly source: SqliteSource,
    private readonly file: string,
  ) {
    this.tables = new Set(source.tableNames());
  }

  has(table: string): boolean {
    return this.tables.has(table);
  }

  /** At most how many rows `table` holds, when the engine can tell without a scan (else 0). */
  rowCountHint(table: string): number {
    if (!this.tables.has(table)) {
      return 0;
    }
    const hint = this.source.rowCountHint?.(table);
    return hint !== undefined && Number.isSafeInteger(hint) && hint > 0 ? hint : 0;
  }

  /** The first of `names` that exists. */
  firstOf(...names: string[]): string | undefined {
    return names.find((name) => this.tables.has(name));
  }

  columns(table: string): Set<string> {
    let found = this.columnCache.get(table);
    if (found === undefined) {
      found = new Set(this.source.columns(table));
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

  /**
   * Scans `table` (every row, rowid order) with `columns`; a damaged file fails with an
   * ImportError naming the table and, from our file reader, the page and offset.
   */
  each(table: string, columns: readonly ScanColumn[], row: (row: ScanRow) => boolean | void): void {
    let fromRow: unknown;
    try {
      this.source.scan(table, columns, (r) => {
        try {
          return row(r);
        } catch (error) {
          fromRow = error;
          throw error;
        }
      });
    } catch (error) {
      if (error === fromRow) {
        throw error;
      }
      throw new ImportError(
        { file: this.file, table },
        `the database is damaged or truncated (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
}
