import { idSlot } from '@streamscope/trace';

const empty = -1;
/** Grow past this share of filled slots (linear probing stays short below it). */
const maxLoad = 0.75;

/**
 * Integer id (0 ≤ id < 2^53) → int32 value, in typed arrays: open addressing with linear
 * probing over a Float64Array of keys and an Int32Array of values, doubled when three quarters
 * full. 12 bytes a slot, no object per entry and no size ceiling short of memory (a JS Map stops
 * at 2^24 entries).
 */
export class IdHashMap {
  private keys: Float64Array;
  private values: Int32Array;
  private mask: number;
  private filled = 0;

  constructor(expected = 16) {
    let capacity = 16;
    while (capacity * maxLoad < expected) {
      capacity *= 2;
    }
    this.keys = new Float64Array(capacity).fill(empty);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.filled;
  }

  /** The value for `id`, or `missing`. */
  get(id: number, missing = -1): number {
    const keys = this.keys;
    for (let at = idSlot(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = keys[at]!;
      if (k === id) {
        return this.values[at]!;
      }
      if (k === empty) {
        return missing;
      }
    }
  }

  /** Refuses an id that is not an integer in [0, 2^53), and grows before an insert would overfill. */
  private roomFor(id: number): void {
    if (!(id >= 0 && id <= Number.MAX_SAFE_INTEGER && Math.floor(id) === id)) {
      throw new RangeError(`id ${id} is not an integer in [0, 2^53)`);
    }
    if (this.filled + 1 > this.keys.length * maxLoad) {
      this.grow();
    }
  }

  set(id: number, value: number): void {
    this.roomFor(id);
    const keys = this.keys;
    for (let at = idSlot(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = keys[at]!;
      if (k === id) {
        this.values[at] = value;
        return;
      }
      if (k === empty) {
        keys[at] = id;
        this.values[at] = value;
        this.filled++;
        return;
      }
    }
  }

  /**
   * The value for `id` if it has one; else sets it to `value` and returns -1. One probe where a
   * `get` then a `set` take two.
   */
  putIfAbsent(id: number, value: number): number {
    this.roomFor(id);
    const keys = this.keys;
    for (let at = idSlot(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = keys[at]!;
      if (k === id) {
        return this.values[at]!;
      }
      if (k === empty) {
        keys[at] = id;
        this.values[at] = value;
        this.filled++;
        return -1;
      }
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const capacity = oldKeys.length * 2;
    if (capacity > 2 ** 31) {
      throw new RangeError(`more than ${2 ** 31 * maxLoad} ids in one index`);
    }
    this.keys = new Float64Array(capacity).fill(empty);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < oldKeys.length; i++) {
      const id = oldKeys[i]!;
      if (id !== empty) {
        let at = idSlot(id) & this.mask;
        while (this.keys[at] !== empty) {
          at = (at + 1) & this.mask;
        }
        this.keys[at] = id;
        this.values[at] = oldValues[i]!;
      }
    }
  }
}
