import { IdSlots } from '@streamscope/trace';

/**
 * Integer id (0 ≤ id < 2^53) → int32 value, in typed arrays (`IdSlots`: a Float64Array of keys,
 * here an Int32Array of values). 12 bytes a slot, no object per entry and no size ceiling short of
 * memory (a JS Map stops at 2^24 entries).
 */
export class IdHashMap extends IdSlots<Int32Array> {
  constructor(expected = 16) {
    super(expected, (capacity) => new Int32Array(capacity));
  }

  /** The value for `id`, or `missing`. */
  get(id: number, missing = -1): number {
    const at = this.slotOf(id);
    return at < 0 ? missing : this.values[at]!;
  }

  set(id: number, value: number): void {
    // The slot first: claiming may grow the table and replace `values`.
    const at = this.claim(id);
    this.values[at] = value;
  }

  /**
   * The value for `id` if it has one; else sets it to `value` and returns -1. One probe where a
   * `get` then a `set` take two.
   */
  putIfAbsent(id: number, value: number): number {
    const before = this.filled;
    const at = this.claim(id);
    if (this.filled === before) {
      return this.values[at]!;
    }
    this.values[at] = value;
    return -1;
  }
}
