/** A value read from SQLite: NULL, a number (integers and reals), text or a blob. */
export type SqlValue = number | string | Uint8Array | null;

/**
 * One column a scan reads. `as` splits an nsys global id exactly, whatever its size (a number is
 * exact only below 2^53): `proc` gives (vm = id >> 48, pid = (id >> 24) & 0xFFFFFF), `thread`
 * adds tid = id & 0xFFFFFF; `int-text` gives an integer as decimal text (NULL for other types).
 * A column the table lacks reads as `ifMissing` (NULL unless given), in every part.
 */
export interface ScanColumn {
  readonly name: string;
  readonly as?: 'value' | 'proc' | 'thread' | 'int-text';
  readonly ifMissing?: number | null;
}

/** How many values a column gives in a row. */
export function columnWidth(column: ScanColumn): number {
  return column.as === 'thread' ? 3 : column.as === 'proc' ? 2 : 1;
}

/**
 * What the nsys SQLite importer needs of a database: its tables, their columns, and whole-table
 * scans in rowid order that read only the columns asked for. Two engines: sql.js over bytes in
 * memory (the browser) and our page-by-page file reader (Node: server workers and the CLI).
 */
export interface SqliteSource {
  tableNames(): readonly string[];
  columns(table: string): readonly string[];
  /**
   * Calls `row` with each row's values, `columns` in order, each spread to its width (one array
   * reused for every row); `row` returns false to stop early.
   */
  scan(
    table: string,
    columns: readonly ScanColumn[],
    row: (values: SqlValue[]) => boolean | void,
  ): void;
  /**
   * About how many rows `table` holds, at most (its largest rowid), found without a scan; undefined
   * when unknown. Lets the importer size its columns once.
   */
  rowCountHint?(table: string): number | undefined;
  /** Frees what the engine holds for reading (its page cache) once the import has read all. */
  release?(): void;
  /** Bytes read from the file so far (progress), where the engine reads from a file. */
  readonly bytesRead?: number;
}
