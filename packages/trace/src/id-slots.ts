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
 * The keys of an integer-id hash table (0 ≤ id < 2^53) in a Float64Array: open addressing with
 * linear probing, doubled when three quarters full. No object per entry and no ceiling short of
 * memory, where a JS `Map` stops at 2^24 entries. A subclass keeps its values in a typed array of
 * its own beside the keys (`values`, slot for slot) and moves them when the table grows.
 */
export abstract class IdSlots<Values extends Float64Array | Int32Array> {
  protected keys: Float64Array;
  protected values: Values;
  protected mask: number;
  protected filled = 0;

  constructor(
    expected: number,
    private readonly makeValues: (capacity: number) => Values,
  ) {
    let capacity = 16;
    while (capacity * maxLoad < expected) {
      capacity *= 2;
    }
    this.keys = new Float64Array(capacity).fill(empty);
    this.values = makeValues(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.filled;
  }

  has(id: number): boolean {
    return this.slotOf(id) >= 0;
  }

  /** The slot holding `id`, or -1. An id below 0 is never held (-1 marks an empty slot). */
  protected slotOf(id: number): number {
    if (!(id >= 0)) {
      return -1;
    }
    const at = this.probe(id);
    return this.keys[at] === id ? at : -1;
  }

  /**
   * The slot of `id`, made where it has none (`filled` grows, the value there is the subclass's
   * to set). Refuses an id that is not an integer in [0, 2^53).
   */
  protected claim(id: number): number {
    if (!(id >= 0 && id <= Number.MAX_SAFE_INTEGER && Math.floor(id) === id)) {
      throw new RangeError(`id ${id} is not an integer in [0, 2^53)`);
    }
    if (this.filled + 1 > this.keys.length * maxLoad) {
      this.grow();
    }
    const at = this.probe(id);
    if (this.keys[at] !== id) {
      this.keys[at] = id;
      this.values[at] = 0;
      this.filled++;
      this.added(id);
    }
    return at;
  }

  /** Called once for each id as it is first claimed. */
  protected added(_id: number): void {}

  /** Where `id` is, or the empty slot where it would go. */
  private probe(id: number): number {
    const keys = this.keys;
    for (let at = idSlot(id) & this.mask; ; at = (at + 1) & this.mask) {
      const k = keys[at]!;
      if (k === id || k === empty) {
        return at;
      }
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const capacity = oldKeys.length * 2;
    if (capacity > 2 ** 31) {
      throw new RangeError(`more than ${2 ** 31 * maxLoad} ids in one table`);
    }
    this.keys = new Float64Array(capacity).fill(empty);
    this.values = this.makeValues(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < oldKeys.length; i++) {
      const id = oldKeys[i]!;
      if (id !== empty) {
        const at = this.probe(id);
        this.keys[at] = id;
        this.values[at] = oldValues[i]!;
      }
    }
  }
}
