import { SqliteFormatError } from './sqlite-format-error.ts';
import type { RecordSink } from './table-scan.ts';

/** A value as SQLite stores it: NULL, integer or real (as a number), text, blob. */
export type CellValue = number | string | Uint8Array | null;

/**
 * Where a decoded row goes: one slot per column the scan asked for. Integers also keep their
 * exact 64 bits as a signed high and an unsigned low half (a number is exact only below 2^53).
 */
export class RowSlots {
  readonly values: CellValue[];
  readonly hi: Int32Array;
  readonly lo: Uint32Array;
  /** Whether the slot holds an integer (its halves are valid). */
  readonly isInt: Uint8Array;

  constructor(readonly count: number) {
    this.values = new Array<CellValue>(count).fill(null);
    this.hi = new Int32Array(count);
    this.lo = new Uint32Array(count);
    this.isInt = new Uint8Array(count);
  }

  setInt(slot: number, hi: number, lo: number): void {
    this.values[slot] = hi * 4294967296 + lo;
    this.hi[slot] = hi;
    this.lo[slot] = lo;
    this.isInt[slot] = 1;
  }

  set(slot: number, value: CellValue): void {
    this.values[slot] = value;
    this.isInt[slot] = 0;
  }
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const fixedSizes = [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0];

/** Byte length of a value of serial type `t`. */
export function serialSize(t: number): number {
  return t < 12 ? fixedSizes[t]! : (t - 12) >>> 1;
}

/**
 * Decodes one record (`buf[start, end)`) into `slots`: `slotOf[column]` is the slot of each
 * column the scan wants (-1 for the others, whose bytes are skipped without decoding). Columns
 * past the end of the record (added by ALTER TABLE) are NULL; the INTEGER PRIMARY KEY column
 * takes the rowid.
 */
export class RecordDecoder implements RecordSink {
  private readonly text: { decode(bytes: Uint8Array): string };
  private readonly view = new Float64Array(1);
  private readonly viewBytes = new Uint8Array(this.view.buffer);

  private readonly utf8: boolean;

  constructor(
    private readonly slotOf: Int32Array,
    private readonly rowidColumn: number,
    encoding: string,
    private readonly slots: RowSlots,
  ) {
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
    const slots = this.slots;
    const slotOf = this.slotOf;
    const columns = slotOf.length;
    const headerEnd = recordHeaderEnd(buf, start, end, page, pageBase);
    let p = varintEnd(buf, start);
    let body = headerEnd;
    let column = 0;
    for (; column < columns && p < headerEnd; column++) {
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
      const size = t < 12 ? fixedSizes[t]! : (t - 12) >>> 1;
      const slot = slotOf[column]!;
      if (slot >= 0) {
        if (body + size > end) {
          throw new SqliteFormatError(
            page,
            pageBase + body,
            `column ${column} runs past the end of its record`,
          );
        }
        this.decodeValue(
          buf,
          body,
          t,
          size,
          slots,
          slot,
          column === this.rowidColumn ? rowid : Number.NaN,
        );
      }
      body += size;
    }
    for (; column < columns; column++) {
      const slot = slotOf[column]!;
      if (slot >= 0) {
        if (column === this.rowidColumn) {
          slots.setInt(slot, Math.floor(rowid / 4294967296), rowid >>> 0);
        } else {
          slots.set(slot, null);
        }
      }
    }
  }

  private decodeValue(
    buf: Uint8Array,
    at: number,
    t: number,
    size: number,
    slots: RowSlots,
    slot: number,
    rowid: number,
  ): void {
    switch (t) {
      case 0:
        if (Number.isNaN(rowid)) {
          slots.set(slot, null);
        } else {
          slots.setInt(slot, Math.floor(rowid / 4294967296), rowid >>> 0);
        }
        return;
      case 1: {
        const v = (buf[at]! << 24) >> 24;
        slots.setInt(slot, v < 0 ? -1 : 0, v >>> 0);
        return;
      }
      case 2: {
        const v = ((buf[at]! << 24) | (buf[at + 1]! << 16)) >> 16;
        slots.setInt(slot, v < 0 ? -1 : 0, v >>> 0);
        return;
      }
      case 3: {
        const v = ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8)) >> 8;
        slots.setInt(slot, v < 0 ? -1 : 0, v >>> 0);
        return;
      }
      case 4: {
        const v = (buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!;
        slots.setInt(slot, v < 0 ? -1 : 0, v >>> 0);
        return;
      }
      case 5: {
        const hi = ((buf[at]! << 24) | (buf[at + 1]! << 16)) >> 16;
        const lo =
          ((buf[at + 2]! << 24) | (buf[at + 3]! << 16) | (buf[at + 4]! << 8) | buf[at + 5]!) >>> 0;
        slots.setInt(slot, hi, lo);
        return;
      }
      case 6: {
        const hi = (buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!;
        const lo =
          ((buf[at + 4]! << 24) | (buf[at + 5]! << 16) | (buf[at + 6]! << 8) | buf[at + 7]!) >>> 0;
        slots.setInt(slot, hi, lo);
        return;
      }
      case 7: {
        // Big-endian IEEE 754; the typed array is little- or big-endian like the machine.
        const bytes = this.viewBytes;
        for (let i = 0; i < 8; i++) {
          bytes[littleEndian ? 7 - i : i] = buf[at + i]!;
        }
        slots.set(slot, this.view[0]!);
        return;
      }
      case 8:
        slots.setInt(slot, 0, 0);
        return;
      case 9:
        slots.setInt(slot, 0, 1);
        return;
      case 10:
      case 11:
        throw new SqliteFormatError(
          0,
          at,
          `serial type ${t} is reserved and never written by SQLite`,
        );
      default:
        if ((t & 1) === 0) {
          slots.set(slot, buf.slice(at, at + size));
        } else {
          slots.set(slot, this.decodeText(buf, at, size));
        }
    }
  }

  private decodeText(buf: Uint8Array, at: number, size: number): string {
    return textAt(buf, at, size, this.text, this.utf8);
  }
}

/** The text of `size` bytes at `at`, decoded by `text` (`utf8`: whether it decodes UTF-8). */
export function textAt(
  buf: Uint8Array,
  at: number,
  size: number,
  text: { decode(bytes: Uint8Array): string },
  utf8: boolean,
): string {
  if (size <= 24 && utf8) {
    // Short ASCII (most names and numbers-as-text): no decoder call.
    let s = '';
    for (let i = at; i < at + size; i++) {
      const c = buf[i]!;
      if (c >= 0x80) {
        return text.decode(buf.subarray(at, at + size));
      }
      s += String.fromCharCode(c);
    }
    return s;
  }
  return text.decode(buf.subarray(at, at + size));
}

/** The index just past the varint at `buf[p]` (at most 9 bytes). */
export function varintEnd(buf: Uint8Array, p: number): number {
  let n = 0;
  while (n < 8 && buf[p + n]! >= 0x80) {
    n++;
  }
  return p + n + 1;
}

/**
 * The end of the header of the record whose payload is `buf[start, end)`: its size is a varint,
 * almost always one byte. A size that overruns the payload is an error naming the page and offset.
 */
export function recordHeaderEnd(
  buf: Uint8Array,
  start: number,
  end: number,
  page: number,
  pageBase: number,
): number {
  let headerBytes = buf[start]!;
  if (headerBytes >= 0x80) {
    headerBytes = 0;
    for (let i = 0, p = start; i < 9; i++) {
      const b = buf[p++]!;
      headerBytes = headerBytes * 128 + (b & 0x7f);
      if (b < 0x80) {
        break;
      }
    }
  }
  if (headerBytes < 1 || start + headerBytes > end) {
    throw new SqliteFormatError(
      page,
      pageBase + start,
      `a record header of ${headerBytes} bytes overruns its ${end - start}-byte payload`,
    );
  }
  return start + headerBytes;
}
