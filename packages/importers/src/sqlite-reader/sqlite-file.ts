import type { TableShape } from './create-table.ts';
import { parseCreateTable } from './create-table.ts';
import { maxRowid } from './max-rowid.ts';
import { PageCache, defaultCacheBytes } from './page-cache.ts';
import type { RandomAccessFile } from './random-access.ts';
import { RecordDecoder, RowSlots } from './record.ts';
import { SqliteFormatError } from './sqlite-format-error.ts';
import type { RecordSink, RowidVisitor } from './table-scan.ts';
import { TableScan } from './table-scan.ts';

const magic = 'SQLite format 3\u0000';
const encodings = ['', 'utf-8', 'utf-16le', 'utf-16be'];

/** A table of the schema: where its b-tree starts and what its columns are. */
export interface SqliteTable extends TableShape {
  readonly name: string;
  readonly rootPage: number;
}

/** Called with each row: `slots` holds the asked-for columns; return false to stop the scan. */
export type RowVisitor = (slots: RowSlots, rowid: number) => boolean | void;

/**
 * A read-only SQLite database read from a file page by page (never held whole): the header,
 * the schema, and scans of rowid tables in rowid order that decode only the columns asked for.
 * Follows the file format of sqlite.org/fileformat.html; a damaged file fails with a
 * SqliteFormatError naming the page and offset.
 */
export class SqliteFile {
  readonly pageSize: number;
  /** Page size less the bytes each page reserves at its end. */
  readonly usableSize: number;
  readonly encoding: string;
  private readonly cache: PageCache;
  private readonly tables = new Map<string, SqliteTable>();

  constructor(file: RandomAccessFile, cacheBytes = defaultCacheBytes) {
    const header = new Uint8Array(100);
    const got = file.sizeBytes < 100 ? 0 : file.readAt(header, 0);
    if (got < 100) {
      throw new SqliteFormatError(
        0,
        0,
        `the file has ${file.sizeBytes} bytes, fewer than SQLite's 100-byte header`,
      );
    }
    for (let i = 0; i < magic.length; i++) {
      if (header[i] !== magic.charCodeAt(i)) {
        throw new SqliteFormatError(0, 0, 'no "SQLite format 3" header: not a SQLite database');
      }
    }
    const rawSize = (header[16]! << 8) | header[17]!;
    this.pageSize = rawSize === 1 ? 65536 : rawSize;
    if (this.pageSize < 512 || (this.pageSize & (this.pageSize - 1)) !== 0) {
      throw new SqliteFormatError(
        0,
        16,
        `page size ${rawSize} is not a power of two from 512 to 65536`,
      );
    }
    this.usableSize = this.pageSize - header[20]!;
    if (this.usableSize < 480) {
      throw new SqliteFormatError(
        0,
        20,
        `${header[20]} reserved bytes per page leave fewer than 480 usable`,
      );
    }
    const encoding = encodings[readU32(header, 56)] ?? '';
    // 0 is what a database that holds no text yet says: UTF-8.
    this.encoding = readU32(header, 56) === 0 ? 'utf-8' : encoding;
    if (this.encoding === '') {
      throw new SqliteFormatError(0, 56, `text encoding ${readU32(header, 56)} is not 1, 2 or 3`);
    }
    this.cache = new PageCache(file, this.pageSize, cacheBytes);
    const headerPages = readU32(header, 28);
    const valid = readU32(header, 24) === readU32(header, 92) && headerPages > 0;
    if (valid && headerPages > this.cache.pageCount) {
      throw new SqliteFormatError(
        0,
        28,
        `the header counts ${headerPages} pages, but the file holds ${this.cache.pageCount} (truncated)`,
      );
    }
    this.readSchema();
  }

  /** Bytes read from the file so far. */
  get bytesRead(): number {
    return this.cache.bytesRead;
  }

  /** Drops the cached pages; a later read fetches them again. */
  dropCache(): void {
    this.cache.clear();
  }

  tableNames(): string[] {
    return [...this.tables.keys()];
  }

  table(name: string): SqliteTable | undefined {
    return this.tables.get(name);
  }

  /** The table's largest rowid (an upper bound on its rows), read down its right edge; a hint. */
  maxRowid(table: SqliteTable): number | undefined {
    return table.withoutRowid ? undefined : maxRowid(this.cache, table.rootPage);
  }

  /**
   * Visits every row of `table` in rowid order with the columns at `columns` (indexes into
   * table.columns) decoded into slots 0… in that order; the others are skipped unread.
   */
  scan(table: SqliteTable, columns: readonly number[], visit: RowVisitor): void {
    const slotOf = new Int32Array(table.columns.length).fill(-1);
    columns.forEach((column, slot) => {
      slotOf[column] = slot;
    });
    const slots = new RowSlots(columns.length);
    const decoder = new RecordDecoder(slotOf, table.rowidColumn, this.encoding, slots);
    this.scanInto(table, decoder, (rowid) => visit(slots, rowid));
  }

  /**
   * Visits every row of `table` in rowid order, each decoded by `sink` (which decides what it
   * reads of the record) before `visit` is called with its rowid.
   */
  scanInto(table: SqliteTable, sink: RecordSink, visit: RowidVisitor): void {
    if (table.withoutRowid) {
      throw new SqliteFormatError(
        table.rootPage,
        0,
        `table ${table.name} is WITHOUT ROWID, which this reader does not read`,
      );
    }
    new TableScan(this.cache, this.usableSize, sink).run(table.rootPage, visit);
  }

  private readSchema(): void {
    // sqlite_schema: type, name, tbl_name, rootpage, sql.
    const schema: SqliteTable = {
      name: 'sqlite_schema',
      rootPage: 1,
      columns: ['type', 'name', 'tbl_name', 'rootpage', 'sql'],
      rowidColumn: -1,
      withoutRowid: false,
    };
    this.scan(schema, [0, 1, 3, 4], (row) => {
      const [type, name, rootPage, sql] = row.values;
      if (type !== 'table' || typeof name !== 'string') {
        return;
      }
      if (typeof rootPage !== 'number' || typeof sql !== 'string') {
        return; // a virtual table has root page 0 and no b-tree of its own
      }
      const shape = parseCreateTable(sql);
      if (shape === undefined || rootPage < 1) {
        return;
      }
      this.tables.set(name, { name, rootPage, ...shape });
    });
  }
}

function readU32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}
