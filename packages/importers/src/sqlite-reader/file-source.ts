import type { ScanColumn, SqliteSource } from '../nsys/sqlite-source.ts';
import { ScanRow, columnWidth } from '../nsys/sqlite-source.ts';
import type { RandomAccessFile } from './random-access.ts';
import type { ColumnRead } from './row-decoder.ts';
import { RowDecoder, SlotMode } from './row-decoder.ts';
import { SqliteFile } from './sqlite-file.ts';

const modes = { value: SlotMode.Value, proc: SlotMode.Proc, thread: SlotMode.Thread };

/** SqliteSource over our page-by-page reader: the database stays on disk, a bounded cache in memory. */
export class FileSqliteSource implements SqliteSource {
  readonly db: SqliteFile;

  constructor(file: RandomAccessFile, cacheBytes?: number) {
    this.db = new SqliteFile(file, cacheBytes);
  }

  get bytesRead(): number {
    return this.db.bytesRead;
  }

  tableNames(): string[] {
    return this.db.tableNames();
  }

  release(): void {
    this.db.dropCache();
  }

  rowCountHint(table: string): number | undefined {
    const shape = this.db.table(table);
    return shape === undefined ? undefined : this.db.maxRowid(shape);
  }

  columns(table: string): readonly string[] {
    return this.db.table(table)?.columns ?? [];
  }

  scan(table: string, columns: readonly ScanColumn[], row: (row: ScanRow) => boolean | void): void {
    const shape = this.db.table(table);
    if (shape === undefined) {
      throw new Error(`no such table: ${table}`);
    }
    const out = new ScanRow(columns.reduce((sum, c) => sum + columnWidth(c), 0));
    // Each asked-for column the table has is decoded straight into its slots; a column it lacks
    // holds `ifMissing` in every part, set once (no row writes there).
    const reads: ColumnRead[] = [];
    let slot = 0;
    for (const c of columns) {
      const column = shape.columns.indexOf(c.name);
      const width = columnWidth(c);
      if (column < 0) {
        for (let k = 0; k < width; k++) {
          out.set(slot + k, c.ifMissing ?? null);
        }
      } else {
        const mode = c.as === 'int-text' ? SlotMode.IntText : modes[c.as ?? 'value'];
        reads.push({ column, slot, mode });
      }
      slot += width;
    }
    const decoder = new RowDecoder(
      shape.columns.length,
      reads,
      shape.rowidColumn,
      this.db.encoding,
      out,
    );
    this.db.scanInto(shape, decoder, () => row(out));
  }
}
