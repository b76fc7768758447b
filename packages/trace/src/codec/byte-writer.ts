const textEncoder = new TextEncoder();

/** Appends little-endian fixed-width and LEB128 varint values to a growing buffer. */
export class ByteWriter {
  private bytes: Uint8Array;
  private view: DataView;
  private at = 0;

  constructor(initialBytes = 4096) {
    this.bytes = new Uint8Array(initialBytes);
    this.view = new DataView(this.bytes.buffer);
  }

  get length(): number {
    return this.at;
  }

  private ensure(extra: number): void {
    const need = this.at + extra;
    if (need > this.bytes.length) {
      let next = this.bytes.length * 2;
      while (next < need) {
        next *= 2;
      }
      const grown = new Uint8Array(next);
      grown.set(this.bytes.subarray(0, this.at));
      this.bytes = grown;
      this.view = new DataView(grown.buffer);
    }
  }

  u8(value: number): void {
    this.ensure(1);
    this.bytes[this.at++] = value;
  }

  u16(value: number): void {
    this.ensure(2);
    this.view.setUint16(this.at, value, true);
    this.at += 2;
  }

  u32(value: number): void {
    this.ensure(4);
    this.view.setUint32(this.at, value, true);
    this.at += 4;
  }

  /** Writes u32 at an earlier offset (a length filled in after the payload). */
  patchU32(offset: number, value: number): void {
    this.view.setUint32(offset, value, true);
  }

  /** Unsigned integer up to 2^53, LEB128. */
  varint(value: number): void {
    this.ensure(8);
    let v = value;
    if (v < 0x10000000) {
      // Fast path: bit operations are exact below 2^31.
      while (v >= 0x80) {
        this.bytes[this.at++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      this.bytes[this.at++] = v;
      return;
    }
    while (v >= 0x80) {
      this.bytes[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.at++] = v;
  }

  /** Signed integer with |value| up to 2^52, zigzag then LEB128. */
  zigzag(value: number): void {
    this.varint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  utf8(value: string): void {
    const encoded = textEncoder.encode(value);
    this.varint(encoded.length);
    this.ensure(encoded.length);
    this.bytes.set(encoded, this.at);
    this.at += encoded.length;
  }

  raw(data: Uint8Array): void {
    this.ensure(data.length);
    this.bytes.set(data, this.at);
    this.at += data.length;
  }

  /** The bytes written so far (a copy, so the writer can be reused). */
  finish(): Uint8Array {
    return this.bytes.slice(0, this.at);
  }
}
