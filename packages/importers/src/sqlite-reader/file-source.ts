import type { ScanColumn, SqlValue, SqliteSource } from '../nsys/sqlite-source.ts';
import { columnWidth } from '../nsys/sqlite-source.ts';
import type { RandomAccessFile } from './random-access.ts';
import type { RowSlots } from './record.ts';
import { SqliteFile } from './sqlite-file.ts';

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

  scan(
    table: string,
    columns: readonly ScanColumn[],
    row: (values: SqlValue[]) => boolean | void,
  ): void {
    const shape = this.db.table(table);
    if (shape === undefined) {
      throw new Error(`no such table: ${table}`);
    }
    // Each asked-for column present in the table is read once, into its own slot.
    const read: number[] = [];
    const slotOf = columns.map((c) => {
      const at = shape.columns.indexOf(c.name);
      if (at < 0) {
        return -1;
      }
      const seen = read.indexOf(at);
      if (seen >= 0) {
        return seen;
      }
      read.push(at);
      return read.length - 1;
    });
    const width = columns.reduce((sum, c) => sum + columnWidth(c), 0);
    const out = new Array<SqlValue>(width).fill(null);
    const plain = columns.every((c, i) => (c.as ?? 'value') === 'value' && slotOf[i] === i);
    this.db.scan(shape, read, (slots) => {
      if (plain) {
        for (let i = 0; i < out.length; i++) {
          out[i] = slots.values[i]!;
        }
      } else {
        spread(columns, slotOf, slots, out);
      }
      return row(out);
    });
  }
}

function spread(
  columns: readonly ScanColumn[],
  slotOf: readonly number[],
  slots: RowSlots,
  out: SqlValue[],
): void {
  let o = 0;
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!;
    const slot = slotOf[i]!;
    const as = c.as ?? 'value';
    if (slot < 0) {
      const missing = c.ifMissing ?? null;
      for (let k = columnWidth(c); k > 0; k--) {
        out[o++] = missing;
      }
      continue;
    }
    const value = slots.values[slot]!;
    if (as === 'value') {
      out[o++] = value;
      continue;
    }
    if (value === null) {
      for (let k = columnWidth(c); k > 0; k--) {
        out[o++] = null;
      }
      continue;
    }
    let hi: number;
    let lo: number;
    if (slots.isInt[slot] === 1) {
      hi = slots.hi[slot]!;
      lo = slots.lo[slot]!;
    } else {
      const big = BigInt.asIntN(64, toInt64(value));
      hi = Number(BigInt.asIntN(32, big >> 32n));
      lo = Number(BigInt.asUintN(32, big));
    }
    if (as === 'int-text') {
      out[o++] = slots.isInt[slot] === 1 ? ((BigInt(hi) << 32n) + BigInt(lo)).toString() : null;
      continue;
    }
    out[o++] = hi >> 16; // id >> 48, arithmetic like SQLite's
    out[o++] = ((hi << 8) | (lo >>> 24)) & 0xffffff;
    if (as === 'thread') {
      out[o++] = lo & 0xffffff;
    }
  }
}

/** SQLite's conversion of a non-integer to an integer for its bit operators. */
function toInt64(value: SqlValue): bigint {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      return 0n;
    }
    const clamped = Math.max(-(2 ** 63), Math.min(2 ** 63 - 1024, Math.trunc(value)));
    return BigInt(clamped);
  }
  if (typeof value === 'string') {
    const m = /^\s*([+-]?\d+)/.exec(value);
    return m === null ? 0n : BigInt(m[1]!);
  }
  return 0n;
}
