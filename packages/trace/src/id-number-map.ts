const empty = -1;
/** Grow past this share of filled slots (linear probing stays short below it). */
const maxLoad = 0.75;
const twoTo32 = 4294967296;

/**
 * A 32-bit slot hash of an integer id in [0, 2^53): both halves mixed (murmur3's finalizer), so
 * dense ids (op indices) and sparse ones (correlation ids) spread alike.
 */
export function idSlot(id: number): number {
  const lo = id >>> 0;
  const hi = (id / twoTo32) >>> 0;
  let h = lo ^ Math.imul(hi, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Integer id (an op index, a correlation id: 0 ≤ id < 2^53) → number, in typed arrays: open
 * addressing with linear probing, doubled when three quarters full, and the ids in the order
 * they were first set, so it iterates as a `Map` does. About 24 bytes an entry and no ceiling
 * short of memory, where a JS `Map` stops at 2^24 entries ("Map maximum size exceeded": the
 * analysis of a 176M-op trace charged device gaps to 17M+ ops).
 */
export class IdNumberMap {
  private keys: Float64Array;
  private values: Float64Array;
  private mask: number;
  private order: Float64Array;
  private filled = 0;

  constructor(expected = 16) {
    let capacity = 16;
    while (capacity * maxLoad < expected) {
      capacity *= 2;
    }
    this.keys = new Float64Array(capacity).fill(empty);
    this.values = new Float64Array(capacity);
    this.mask = capacity - 1;
    this.order = new Float64Array(Math.max(16, Math.ceil(capacity * maxLoad)));
  }

  get size(): number {
    return this.filled;
  }

  has(id: number): boolean {
    return this.slotOf(id) >= 0;
  }

  /** The value for `id`, or undefined where it has none (as `Map.get`). */
  get(id: number): number | undefined {
    const at = this.slotOf(id);
    return at < 0 ? undefined : this.values[at];
  }

  set(id: number, value: number): this {
    // The slot first: claiming may grow the table and replace `values`.
    const at = this.claim(id);
    this.values[at] = value;
    return this;
  }

  /** Adds `delta` to the value for `id` (0 where it has none). */
  add(id: number, delta: number): void {
    const at = this.claim(id);
    this.values[at] = this.values[at]! + delta;
  }

  /** The ids in the order they were first set. */
  *keysInOrder(): Generator<number> {
    for (let i = 0; i < this.filled; i++) {
      yield this.order[i]!;
    }
  }

  /** The ids in the order they were first set, as an array. */
  keyArray(): number[] {
    return Array.from(this.order.subarray(0, this.filled));
  }

  private slotOf(id: number): number {
    if (!(id >= 0)) {
      // No such id can be held, and -1 marks an empty slot: never look one up.
      return -1;
    }
    const keys = this.keys;
    for (let at = idSlot(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = keys[at]!;
      if (k === id) {
        return at;
      }
      if (k === empty) {
        return -1;
      }
    }
  }

  /** The slot of `id`, made (value 0) where it has none. */
  private claim(id: number): number {
    if (!(id >= 0 && id <= Number.MAX_SAFE_INTEGER && Math.floor(id) === id)) {
      throw new RangeError(`id ${id} is not an integer in [0, 2^53)`);
    }
    if (this.filled + 1 > this.keys.length * maxLoad) {
      this.grow();
    }
    const keys = this.keys;
    for (let at = idSlot(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = keys[at]!;
      if (k === id) {
        return at;
      }
      if (k === empty) {
        keys[at] = id;
        this.values[at] = 0;
        if (this.filled === this.order.length) {
          const order = new Float64Array(this.order.length * 2);
          order.set(this.order);
          this.order = order;
        }
        this.order[this.filled++] = id;
        return at;
      }
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const capacity = oldKeys.length * 2;
    this.keys = new Float64Array(capacity).fill(empty);
    this.values = new Float64Array(capacity);
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
