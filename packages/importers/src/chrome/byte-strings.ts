// Strings longer than this are decoded each time instead of kept (names are short; a huge one
// is rare and must not pin memory).
const maxInternBytes = 512;
// At most this many distinct strings are kept (a trace repeats a few thousand names); past it,
// strings are decoded each time, so memory stays bounded whatever the input.
const maxEntries = 1 << 16;
const tableSlots = maxEntries * 2;
const poolBytes = maxEntries * 64;

const ascii = new TextDecoder('latin1');

/**
 * Interns printable-ASCII strings from their bytes: the same bytes give the same JS string
 * object, so a million events naming a few thousand kernels build a few thousand strings, not a
 * million. The caller has checked the bytes (printable ASCII, no `"` or `\`) and hashed them
 * with `hashStep`.
 */
export class ByteStrings {
  /** Slot → entry + 1 (0 = empty); open addressing, linear probing. */
  private readonly slots = new Int32Array(tableSlots);
  private readonly hashes: number[] = [];
  private readonly starts: number[] = [];
  private readonly lengths: number[] = [];
  private readonly strings: string[] = [];
  private pool = new Uint8Array(4096);
  private poolUsed = 0;

  get size(): number {
    return this.strings.length;
  }

  /** The string of `buf[start, end)`, whose bytes hash to `hash`. */
  get(buf: Uint8Array, start: number, end: number, hash: number): string {
    const length = end - start;
    if (length > maxInternBytes) {
      return ascii.decode(buf.subarray(start, end));
    }
    const mask = tableSlots - 1;
    let slot = (hash ^ length) & mask;
    for (;;) {
      const entry = this.slots[slot]! - 1;
      if (entry < 0) {
        break;
      }
      if (
        this.hashes[entry] === hash &&
        this.lengths[entry] === length &&
        this.same(entry, buf, start, length)
      ) {
        return this.strings[entry]!;
      }
      slot = (slot + 1) & mask;
    }
    const value = ascii.decode(buf.subarray(start, end));
    if (this.strings.length >= maxEntries || this.poolUsed + length > poolBytes) {
      return value;
    }
    this.slots[slot] = this.strings.length + 1;
    this.hashes.push(hash);
    this.lengths.push(length);
    this.starts.push(this.poolUsed);
    this.strings.push(value);
    this.keep(buf, start, length);
    return value;
  }

  private same(entry: number, buf: Uint8Array, start: number, length: number): boolean {
    const pool = this.pool;
    const at = this.starts[entry]!;
    for (let k = 0; k < length; k++) {
      if (pool[at + k] !== buf[start + k]) {
        return false;
      }
    }
    return true;
  }

  private keep(buf: Uint8Array, start: number, length: number): void {
    if (this.poolUsed + length > this.pool.length) {
      const grown = new Uint8Array(
        Math.min(poolBytes, Math.max(this.pool.length * 2, this.poolUsed + length)),
      );
      grown.set(this.pool.subarray(0, this.poolUsed));
      this.pool = grown;
    }
    this.pool.set(buf.subarray(start, start + length), this.poolUsed);
    this.poolUsed += length;
  }
}

/** One byte into a string's hash (the scanner hashes as it checks each byte). */
export function hashStep(hash: number, c: number): number {
  return (Math.imul(hash, 31) + c) | 0;
}
