import { CodecError } from './codec-error.ts';

const textDecoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads what ByteWriter wrote, checking every read against `end`. `where` is a callback so
 * the happy path builds no strings; on error it names the record and field being read.
 */
export class ByteReader {
  at: number;
  /** Index of the record being read, for error messages; -1 while reading the batch head. */
  record = -1;

  constructor(
    readonly bytes: Uint8Array,
    start: number,
    readonly end: number,
    private readonly where: (record: number) => string,
    /** Where `bytes[0]` lies in the file or stream, so messages name the byte there. */
    readonly base = 0,
  ) {
    this.at = start;
  }

  get remaining(): number {
    return this.end - this.at;
  }

  fail(field: string, problem: string): never {
    throw new CodecError(
      `${this.where(this.record)}, field '${field}': ${problem} at byte ${this.base + this.at}`,
      this.base + this.at,
    );
  }

  u8(field: string): number {
    if (this.at >= this.end) {
      this.fail(field, 'buffer ends');
    }
    return this.bytes[this.at++]!;
  }

  varint(field: string): number {
    const bytes = this.bytes;
    let at = this.at;
    const end = this.end;
    if (at < end) {
      const b0 = bytes[at]!;
      if (b0 < 0x80) {
        this.at = at + 1;
        return b0;
      }
    }
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      if (at >= end) {
        this.at = at;
        this.fail(field, 'varint runs past the end of the buffer');
      }
      const b = bytes[at++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.at = at;
        if (result > Number.MAX_SAFE_INTEGER) {
          this.fail(field, `value ${result} exceeds 2^53`);
        }
        return result;
      }
      scale *= 0x80;
    }
    this.at = at;
    return this.fail(field, 'varint longer than 8 bytes');
  }

  zigzag(field: string): number {
    return unzigzag(this.varint(field));
  }

  utf8(field: string): string {
    const length = this.varint(field);
    if (length > this.end - this.at) {
      this.fail(field, `string of ${length} bytes runs past the end of the buffer`);
    }
    const start = this.at;
    this.at += length;
    try {
      return textDecoder.decode(this.bytes.subarray(start, start + length));
    } catch {
      this.at = start;
      return this.fail(field, 'invalid UTF-8');
    }
  }
}

/** A zigzag-encoded varint's value. */
export function unzigzag(v: number): number {
  if (v <= 0x7fffffff) {
    // Exact in 32-bit integer arithmetic.
    return (v >>> 1) ^ -(v & 1);
  }
  return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
}

/** Where the last `fastVarint` or `checkedVarint` stopped (module state: the hot loop allocates nothing). */
export let varintEnd = 0;

/**
 * The varint at `at`, for hot loops that keep their position in a local: up to 7 bytes, else
 * -1, and the caller asks `checkedVarint`, which reads it (or fails) with the full checks.
 */
export function fastVarint(bytes: Uint8Array, at: number, end: number): number {
  let result = 0;
  let scale = 1;
  for (let i = 0; i < 7 && at < end; i++) {
    const b = bytes[at++]!;
    result += (b & 0x7f) * scale;
    if (b < 0x80) {
      varintEnd = at;
      return result;
    }
    scale *= 0x80;
  }
  return -1;
}

/** The checked read behind `fastVarint`, from `at`. */
export function checkedVarint(reader: ByteReader, at: number, field: string): number {
  reader.at = at;
  const v = reader.varint(field);
  varintEnd = reader.at;
  return v;
}
