// Strings longer than this are decoded each time instead of kept (names are short; a huge one
// is rare and must not pin memory).
const maxInternBytes = 512;
// At most this many distinct strings are kept (a trace repeats a few thousand names); past it,
// strings are decoded each time, so memory stays bounded whatever the input.
export const maxEntries = 1 << 16;
const tableSlots = maxEntries * 2;
const poolBytes = maxEntries * 64;

const ascii = new TextDecoder('latin1');
const oneByte = Array.from({ length: 256 }, (_, c) => String.fromCharCode(c));

// Slots looked at before a string is decoded without being kept: a bound on the work per
// string even when many strings share a hash (they are hashed on a sample of their bytes).
const maxProbes = 16;

/**
 * Interns printable-ASCII strings from their bytes: the same bytes give the same JS string
 * object, so a million events naming a few thousand kernels build a few thousand strings, not a
 * million. The caller has checked the bytes (printable ASCII, no `"` or `\`). A string is
 * hashed on its length and a few words of its bytes, and found by comparing all of them, four
 * at a time.
 */
export class ByteStrings {
  /** Slot → entry + 1 (0 = empty); open addressing, linear probing. */
  private readonly slots = new Int32Array(tableSlots);
  private readonly hashes: number[] = [];
  private readonly starts: number[] = [];
  private readonly lengths: number[] = [];
  private readonly strings: string[] = [];
  private pool = new Uint8Array(4096);
  private poolView = new DataView(this.pool.buffer);
  private poolUsed = 0;
  /** A view of the buffer last read from. */
  private viewOf: Uint8Array | undefined;
  private view: DataView = new DataView(new ArrayBuffer(0));
  /** The entry the last `get` returned (0 ≤ entry < maxEntries), or -1 when it kept none. */
  lastEntry = -1;

  get size(): number {
    return this.strings.length;
  }

  /** The string of `buf[start, end)`. */
  get(buf: Uint8Array, start: number, end: number): string {
    const length = end - start;
    this.lastEntry = -1;
    if (length === 1) {
      return oneByte[buf[start]!]!; // ph
    }
    if (length > maxInternBytes) {
      return ascii.decode(buf.subarray(start, end));
    }
    if (buf !== this.viewOf) {
      this.viewOf = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    const hash = sampleHash(buf, this.view, start, length);
    const mask = tableSlots - 1;
    let slot = (hash ^ length) & mask;
    for (let probe = 0; ; probe++) {
      const entry = this.slots[slot]! - 1;
      if (entry < 0) {
        break;
      }
      if (probe === maxProbes) {
        return ascii.decode(buf.subarray(start, end));
      }
      if (
        this.hashes[entry] === hash &&
        this.lengths[entry] === length &&
        sameBytes(this.poolView, this.starts[entry]!, this.view, start, length)
      ) {
        this.lastEntry = entry;
        return this.strings[entry]!;
      }
      slot = (slot + 1) & mask;
    }
    const value = ascii.decode(buf.subarray(start, end));
    if (this.strings.length >= maxEntries || this.poolUsed + length > poolBytes) {
      return value;
    }
    this.lastEntry = this.strings.length;
    this.slots[slot] = this.strings.length + 1;
    this.hashes.push(hash);
    this.lengths.push(length);
    this.starts.push(this.poolUsed);
    this.strings.push(value);
    this.keep(buf, start, length);
    return value;
  }

  private keep(buf: Uint8Array, start: number, length: number): void {
    if (this.poolUsed + length > this.pool.length) {
      const grown = new Uint8Array(
        Math.min(poolBytes, Math.max(this.pool.length * 2, this.poolUsed + length)),
      );
      grown.set(this.pool.subarray(0, this.poolUsed));
      this.pool = grown;
      this.poolView = new DataView(grown.buffer);
    }
    this.pool.set(buf.subarray(start, start + length), this.poolUsed);
    this.poolUsed += length;
  }
}

/**
 * A hash of a string's length and some of its bytes: all of a short one, else five four-byte
 * words spread over it (both ends, the middle, the quarters), where names that differ differ.
 */
function sampleHash(buf: Uint8Array, view: DataView, start: number, length: number): number {
  let hash = length;
  if (length < 8) {
    for (let k = 0; k < length; k++) {
      hash = (Math.imul(hash, 31) + buf[start + k]!) | 0;
    }
    return hash;
  }
  const last = start + length - 4;
  const quarter = length >> 2;
  hash = Math.imul(hash ^ view.getInt32(start, true), 0x9e3779b1);
  hash = Math.imul(hash ^ view.getInt32(last, true), 0x9e3779b1);
  hash = Math.imul(hash ^ view.getInt32(start + (length >> 1) - 2, true), 0x9e3779b1);
  if (length > 16) {
    hash = Math.imul(hash ^ view.getInt32(start + quarter, true), 0x9e3779b1);
    hash = Math.imul(hash ^ view.getInt32(last - quarter, true), 0x9e3779b1);
  }
  return hash ^ (hash >>> 15);
}

/** Whether `length` bytes at `a[at]` equal those at `b[bt]`, four at a time. */
function sameBytes(a: DataView, at: number, b: DataView, bt: number, length: number): boolean {
  let k = 0;
  for (; k + 4 <= length; k += 4) {
    if (a.getInt32(at + k, true) !== b.getInt32(bt + k, true)) {
      return false;
    }
  }
  for (; k < length; k++) {
    if (a.getUint8(at + k) !== b.getUint8(bt + k)) {
      return false;
    }
  }
  return true;
}
