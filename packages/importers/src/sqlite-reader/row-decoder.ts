import type { ScanRow } from '../nsys/sqlite-source.ts';
import { SlotType } from '../nsys/sqlite-source.ts';
import { recordHeaderEnd, textAt, varintEnd } from './record.ts';
import { SqliteFormatError } from './sqlite-format-error.ts';
import type { RecordSink } from './table-scan.ts';

/** How a column read lands in its row: its value, or an nsys global id split in 2 or 3 parts, or an integer as text. */
export const SlotMode = { Value: 0, Proc: 1, Thread: 2, IntText: 3 } as const;

/** One read of a table column: the first slot of the row it fills, and how. */
export interface ColumnRead {
  readonly column: number;
  readonly slot: number;
  readonly mode: number;
}

const twoTo32 = 4294967296;
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Decodes the columns a scan reads straight from a record's bytes into the typed slots of a
 * ScanRow: integers and reals into `num` (no boxed number, no array per row), text and blobs
 * into `ref`. The record header is walked only up to the last column read; the bytes of other
 * columns are skipped unread. Global ids split into (vm, pid[, tid]) from their exact 64 bits.
 */
export class RowDecoder implements RecordSink {
  private readonly slotOf: Int32Array;
  private readonly modeOf: Uint8Array;
  /** Reads of a column beyond its first (a column asked for twice), by column. */
  private readonly more: (ColumnRead[] | undefined)[] = [];
  private readonly lastColumn: number;
  /** 1 where a column is read once, as its value: its integers take the inline path. */
  private readonly plain: Uint8Array;
  private readonly text: { decode(bytes: Uint8Array): string };
  private readonly utf8: boolean;
  private readonly f64 = new Float64Array(1);
  private readonly f64Bytes = new Uint8Array(this.f64.buffer);
  // The halves of the last integer decoded: signed high, unsigned low.
  private hi = 0;
  private lo = 0;

  constructor(
    columns: number,
    reads: readonly ColumnRead[],
    private readonly rowidColumn: number,
    encoding: string,
    private readonly row: ScanRow,
  ) {
    this.slotOf = new Int32Array(columns).fill(-1);
    this.modeOf = new Uint8Array(columns);
    let last = -1;
    for (const read of reads) {
      if (this.slotOf[read.column] === -1) {
        this.slotOf[read.column] = read.slot;
        this.modeOf[read.column] = read.mode;
      } else {
        (this.more[read.column] ??= []).push(read);
      }
      last = Math.max(last, read.column);
    }
    this.lastColumn = last;
    this.plain = new Uint8Array(columns);
    for (let c = 0; c < columns; c++) {
      const once = this.more[c] === undefined;
      this.plain[c] =
        this.slotOf[c]! >= 0 && this.modeOf[c] === SlotMode.Value && once && c !== rowidColumn
          ? 1
          : 0;
    }
    this.text = new TextDecoder(encoding);
    this.utf8 = encoding === 'utf-8';
  }

  decode(
    buf: Uint8Array,
    start: number,
    end: number,
    rowid: number,
    page: number,
    pageBase: number,
  ): void {
    const slotOf = this.slotOf;
    const plain = this.plain;
    const num = this.row.num;
    const type = this.row.type;
    const last = this.lastColumn;
    const headerEnd = recordHeaderEnd(buf, start, end, page, pageBase);
    let p = varintEnd(buf, start);
    let body = headerEnd;
    let column = 0;
    for (; column <= last && p < headerEnd; column++) {
      let t = buf[p++]!;
      if (t >= 0x80) {
        t &= 0x7f;
        for (let i = 0; i < 8; i++) {
          const b = buf[p++]!;
          t = t * 128 + (b & 0x7f);
          if (b < 0x80) {
            break;
          }
        }
      }
      const size = t < 12 ? (t < 5 ? t : t === 5 ? 6 : t < 8 ? 8 : 0) : (t - 12) >>> 1;
      const slot = slotOf[column]!;
      if (slot >= 0) {
        if (body + size > end) {
          throw new SqliteFormatError(
            page,
            pageBase + body,
            `column ${column} runs past the end of its record`,
          );
        }
        if (t >= 1 && t <= 6 && plain[column] === 1) {
          // The common cell: an integer read as its value, decoded here (big-endian).
          let v = (buf[body]! << 24) >> 24;
          if (t <= 4) {
            for (let i = 1; i < t; i++) {
              v = (v << 8) | buf[body + i]!;
            }
          } else {
            const lo = body + (t === 5 ? 2 : 4); // the low 4 bytes follow 2 or 4 high bytes
            for (let i = body + 1; i < lo; i++) {
              v = (v << 8) | buf[i]!;
            }
            v =
              v * twoTo32 +
              (((buf[lo]! << 24) | (buf[lo + 1]! << 16) | (buf[lo + 2]! << 8) | buf[lo + 3]!) >>>
                0);
          }
          num[slot] = v;
          type[slot] = SlotType.Number;
        } else if ((t === 8 || t === 9) && plain[column] === 1) {
          num[slot] = t - 8; // the constants 0 and 1, stored in the header alone
          type[slot] = SlotType.Number;
        } else if (t === 0 && plain[column] === 1) {
          type[slot] = SlotType.Null; // not the rowid column: a plain NULL
        } else {
          const rowidHere = column === this.rowidColumn ? rowid : Number.NaN;
          this.put(buf, body, t, size, slot, this.modeOf[column]!, rowidHere, page, pageBase);
          const more = this.more[column];
          if (more !== undefined) {
            for (const read of more) {
              this.put(buf, body, t, size, read.slot, read.mode, rowidHere, page, pageBase);
            }
          }
        }
      }
      body += size;
    }
    // Columns past the end of the record (added by ALTER TABLE): NULL, or the rowid.
    for (; column <= last; column++) {
      const slot = slotOf[column]!;
      if (slot >= 0) {
        const t = column === this.rowidColumn ? 0 : -1;
        this.put(buf, 0, t, 0, slot, this.modeOf[column]!, rowid, page, pageBase);
        for (const read of this.more[column] ?? []) {
          this.put(buf, 0, t, 0, read.slot, read.mode, rowid, page, pageBase);
        }
      }
    }
  }

  /**
   * Puts the value of serial type `t` at `buf[at]` into `slot` by `mode`. Type 0 with a rowid
   * (not NaN) is the INTEGER PRIMARY KEY; type -1 is a column the record lacks (NULL).
   */
  private put(
    buf: Uint8Array,
    at: number,
    t: number,
    size: number,
    slot: number,
    mode: number,
    rowid: number,
    page: number,
    pageBase: number,
  ): void {
    const row = this.row;
    const num = row.num;
    const type = row.type;
    let isInt = true;
    switch (t) {
      case -1:
        isInt = false;
        break;
      case 0:
        if (Number.isNaN(rowid)) {
          isInt = false;
        } else {
          this.hi = Math.floor(rowid / twoTo32);
          this.lo = rowid >>> 0;
          if (mode === SlotMode.Value) {
            num[slot] = rowid;
            type[slot] = SlotType.Number;
            return;
          }
        }
        break;
      case 1:
      case 2:
      case 3:
      case 4: {
        // Big-endian two's complement of 1 to 4 bytes.
        let v = (buf[at]! << 24) >> 24;
        for (let i = 1; i < t; i++) {
          v = (v << 8) | buf[at + i]!;
        }
        if (mode === SlotMode.Value) {
          num[slot] = v;
          type[slot] = SlotType.Number;
          return;
        }
        this.hi = v < 0 ? -1 : 0;
        this.lo = v >>> 0;
        break;
      }
      case 5:
        this.hi = ((buf[at]! << 24) | (buf[at + 1]! << 16)) >> 16;
        this.lo =
          ((buf[at + 2]! << 24) | (buf[at + 3]! << 16) | (buf[at + 4]! << 8) | buf[at + 5]!) >>> 0;
        break;
      case 6:
        this.hi = (buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!;
        this.lo =
          ((buf[at + 4]! << 24) | (buf[at + 5]! << 16) | (buf[at + 6]! << 8) | buf[at + 7]!) >>> 0;
        break;
      case 7: {
        // Big-endian IEEE 754; the typed array is little- or big-endian like the machine.
        const bytes = this.f64Bytes;
        for (let i = 0; i < 8; i++) {
          bytes[littleEndian ? 7 - i : i] = buf[at + i]!;
        }
        this.putOther(slot, mode, this.f64[0]!);
        return;
      }
      case 8:
        this.hi = 0;
        this.lo = 0;
        break;
      case 9:
        this.hi = 0;
        this.lo = 1;
        break;
      case 10:
      case 11:
        throw new SqliteFormatError(
          page,
          pageBase + at,
          `serial type ${t} is reserved and never written by SQLite`,
        );
      default:
        this.putOther(
          slot,
          mode,
          (t & 1) === 0 ? buf.slice(at, at + size) : textAt(buf, at, size, this.text, this.utf8),
        );
        return;
    }
    if (!isInt) {
      this.putNull(slot, mode);
      return;
    }
    const hi = this.hi;
    const lo = this.lo;
    switch (mode) {
      case SlotMode.Value:
        num[slot] = hi * twoTo32 + lo;
        type[slot] = SlotType.Number;
        return;
      case SlotMode.IntText:
        row.set(slot, ((BigInt(hi) << 32n) + BigInt(lo)).toString());
        return;
      default:
        this.putParts(slot, mode, hi, lo);
    }
  }

  /** An nsys global id's parts: vm = id >> 48, pid = (id >> 24) & 0xFFFFFF[, tid = id & 0xFFFFFF]. */
  private putParts(slot: number, mode: number, hi: number, lo: number): void {
    const num = this.row.num;
    const type = this.row.type;
    num[slot] = hi >> 16; // arithmetic, like SQLite's >>
    num[slot + 1] = ((hi << 8) | (lo >>> 24)) & 0xffffff;
    type[slot] = SlotType.Number;
    type[slot + 1] = SlotType.Number;
    if (mode === SlotMode.Thread) {
      num[slot + 2] = lo & 0xffffff;
      type[slot + 2] = SlotType.Number;
    }
  }

  private putNull(slot: number, mode: number): void {
    const width = mode === SlotMode.Thread ? 3 : mode === SlotMode.Proc ? 2 : 1;
    for (let k = 0; k < width; k++) {
      this.row.type[slot + k] = SlotType.Null;
    }
  }

  /** A real, text or blob: as itself, or split as SQLite's bit operators convert it. */
  private putOther(slot: number, mode: number, value: number | string | Uint8Array): void {
    if (mode === SlotMode.Value) {
      this.row.set(slot, value);
      return;
    }
    if (mode === SlotMode.IntText) {
      this.row.set(slot, null);
      return;
    }
    const big = BigInt.asIntN(64, toInt64(value));
    this.putParts(
      slot,
      mode,
      Number(BigInt.asIntN(32, big >> 32n)),
      Number(BigInt.asUintN(32, big)),
    );
  }
}

/** SQLite's conversion of a non-integer to an integer for its bit operators. */
function toInt64(value: number | string | Uint8Array): bigint {
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
