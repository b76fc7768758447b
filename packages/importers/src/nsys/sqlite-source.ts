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

/** What a slot of a ScanRow holds. */
export const SlotType = { Null: 0, Number: 1, Text: 2, Blob: 3 } as const;

/**
 * One row of a scan in typed slots, the scan's columns in order, each spread to its width: no
 * array of values per row and no boxed number per cell. One object is reused for every row.
 */
export class ScanRow {
  /** Each slot's number (integer or real) where its type is Number; stale elsewhere. */
  readonly num: Float64Array;
  /** Each slot's SlotType. */
  readonly type: Uint8Array;
  /** Each slot's text or blob where its type says so; stale elsewhere. */
  readonly ref: (string | Uint8Array | null)[];

  constructor(readonly width: number) {
    this.num = new Float64Array(width);
    this.type = new Uint8Array(width);
    this.ref = new Array<string | Uint8Array | null>(width).fill(null);
  }

  /** Slot `i` as a value (the slow path: errors, rare columns). */
  value(i: number): SqlValue {
    const type = this.type[i];
    return type === SlotType.Number
      ? this.num[i]!
      : type === SlotType.Null
        ? null
        : (this.ref[i] ?? null);
  }

  /** Puts `value` in slot `i`. */
  set(i: number, value: SqlValue): void {
    if (typeof value === 'number') {
      this.num[i] = value;
      this.type[i] = SlotType.Number;
    } else if (value === null) {
      this.type[i] = SlotType.Null;
    } else {
      this.ref[i] = value;
      this.type[i] = typeof value === 'string' ? SlotType.Text : SlotType.Blob;
    }
  }
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
   * Calls `row` with each row, `columns` in order, each spread to its width (one ScanRow reused
   * for every row); `row` returns false to stop early.
   */
  scan(table: string, columns: readonly ScanColumn[], row: (row: ScanRow) => boolean | void): void;
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
