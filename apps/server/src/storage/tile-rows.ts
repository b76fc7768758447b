// Rows of the tiles file's op and range sections: blocks of up to rowsPerBlock rows of whole
// numbers (up to 2^52; only delta fields may be negative), each field a varint of its value or, for fields that grow
// along a track (start, op index, correlation id), a zigzag varint of its change from the row
// before. A row of an op takes about 12 bytes where its raw fields take 40.

/** How one field of a row is written. */
export const FieldCoding = {
  /** The value itself. */
  Value: 0,
  /** The change from the previous row of the block (the first row: from 0), zigzag. */
  Delta: 1,
} as const;
export type FieldCoding = (typeof FieldCoding)[keyof typeof FieldCoding];

/**
 * An op row: start, duration, name, correlation, op index, bytes, refId + 1, and kind, flags and
 * mem kinds in one field (`packOpKinds`: one byte for an op without flags or mem kinds).
 */
export const opRowFields: readonly FieldCoding[] = [
  FieldCoding.Delta, // startNs
  FieldCoding.Value, // durNs
  FieldCoding.Value, // nameId
  FieldCoding.Delta, // correlationId
  FieldCoding.Delta, // op index in the trace
  FieldCoding.Value, // bytes
  FieldCoding.Value, // refId + 1 (noRef wraps to 0)
  FieldCoding.Value, // kind + 256 × (flags + 256 × memKinds)
];
export const OpCol = {
  startNs: 0,
  durNs: 1,
  nameId: 2,
  correlationId: 3,
  index: 4,
  bytes: 5,
  refIdPlus1: 6,
  kinds: 7,
} as const;

/** An op's kind, flags and mem kinds (a byte each) as one row field. */
export function packOpKinds(kind: number, flags: number, memKinds: number): number {
  return kind + 256 * (flags + 256 * memKinds);
}

/** A range row: start, duration, name, domain, depth, kind, range index. */
export const rangeRowFields: readonly FieldCoding[] = [
  FieldCoding.Delta, // startNs
  FieldCoding.Value, // durNs
  FieldCoding.Value, // nameId
  FieldCoding.Value, // domainId
  FieldCoding.Value, // depth
  FieldCoding.Value, // kind
  FieldCoding.Delta, // range index in the trace
];
export const RangeCol = {
  startNs: 0,
  durNs: 1,
  nameId: 2,
  domainId: 3,
  depth: 4,
  kind: 5,
  index: 6,
} as const;

/** Most bytes one varint of a value below 2^54 takes. */
const maxVarintBytes = 8;

/**
 * Writes blocks of rows into one buffer, reused across blocks. `rows` holds `count` rows of
 * `fields.length` numbers each, row-major.
 */
export class RowBlockWriter {
  private readonly bytes: Uint8Array;
  private readonly prev: Float64Array;
  /** Per field, 1 where it is written as a delta. */
  private readonly delta: Uint8Array;

  constructor(fields: readonly FieldCoding[], maxRows: number) {
    this.bytes = new Uint8Array(maxRows * fields.length * maxVarintBytes);
    this.prev = new Float64Array(fields.length);
    this.delta = Uint8Array.from(fields, (c) => (c === FieldCoding.Delta ? 1 : 0));
  }

  /** The encoded block (a view of the writer's buffer, valid until the next call). */
  encode(rows: Float64Array, count: number): Uint8Array {
    const delta = this.delta;
    const f = delta.length;
    const prev = this.prev;
    prev.fill(0);
    const b = this.bytes;
    let at = 0;
    let bad = false;
    const n = count * f;
    for (let o = 0, k = 0; o < n; o++, k = k + 1 === f ? 0 : k + 1) {
      const v = rows[o]!;
      let z: number;
      if (delta[k] === 1) {
        const d = v - prev[k]!;
        prev[k] = v;
        z = d >= 0 ? d * 2 : -d * 2 - 1;
      } else {
        z = v;
      }
      // Whole, and a delta's zigzag or a value within 2^53 (a NaN fails both).
      if (!(z >= 0 && z <= 2 ** 53 && z === Math.floor(z))) {
        bad = true;
        break;
      }
      // Varint, 7 bits a byte, low first: bit operators below 2^31, arithmetic beyond.
      while (z >= 2 ** 31) {
        b[at++] = (z % 128) | 128;
        z = Math.floor(z / 128);
      }
      while (z >= 128) {
        b[at++] = (z & 127) | 128;
        z >>= 7;
      }
      b[at++] = z;
    }
    if (bad) {
      throw new Error(this.badValue(rows, count));
    }
    return b.subarray(0, at);
  }

  private badValue(rows: Float64Array, count: number): string {
    const f = this.delta.length;
    for (let o = 0; o < count * f; o++) {
      const v = rows[o]!;
      if (!(Math.abs(v) <= 2 ** 52 && Math.floor(v) === v) || (this.delta[o % f] === 0 && v < 0)) {
        return `a tiles row field holds ${v}: only whole numbers up to 2^52 fit (negative ones only as deltas)`;
      }
    }
    return 'a tiles row field is out of range';
  }
}

/**
 * Decodes a block of `count` rows into `out` (row-major, `fields.length` numbers a row). Throws
 * naming the block when its bytes end early or run on past the rows.
 */
export function decodeRowBlock(
  bytes: Uint8Array,
  count: number,
  fields: readonly FieldCoding[],
  out: Float64Array,
  where: string,
): void {
  const f = fields.length;
  let at = 0;
  const end = bytes.length;
  for (let r = 0; r < count; r++) {
    for (let k = 0; k < f; k++) {
      let z = 0;
      let scale = 1;
      for (;;) {
        if (at >= end) {
          throw new Error(`${where}: the block ends inside row ${r} of ${count}`);
        }
        const byte = bytes[at++]!;
        z += (byte & 127) * scale;
        if (byte < 128) {
          break;
        }
        scale *= 128;
      }
      const o = r * f + k;
      if (fields[k] === FieldCoding.Delta) {
        const d = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
        out[o] = (r === 0 ? 0 : out[o - f]!) + d;
      } else {
        out[o] = z;
      }
    }
  }
  if (at !== end) {
    throw new Error(`${where}: ${end - at} bytes follow the block's ${count} rows`);
  }
}
