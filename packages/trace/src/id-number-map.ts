import { IdSlots } from './id-slots.ts';

/**
 * Integer id (an op index, a correlation id: 0 ≤ id < 2^53) → number, in typed arrays
 * (`IdSlots`), with the ids in the order they were first set, so it iterates as a `Map` does.
 * About 24 bytes an entry and no ceiling short of memory, where a JS `Map` stops at 2^24
 * entries ("Map maximum size exceeded": the analysis of a 176M-op trace charged device gaps to
 * 17M+ ops).
 */
export class IdNumberMap extends IdSlots<Float64Array> {
  private order = new Float64Array(16);

  constructor(expected = 16) {
    super(expected, (capacity) => new Float64Array(capacity));
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

  protected override added(id: number): void {
    const at = this.filled - 1;
    if (at === this.order.length) {
      const order = new Float64Array(this.order.length * 2);
      order.set(this.order);
      this.order = order;
    }
    this.order[at] = id;
  }
}
