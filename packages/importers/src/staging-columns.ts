type TypedArray = Float64Array | Int32Array | Uint32Array | Uint8Array;
type TypedArrayConstructor<T extends TypedArray> = new (length: number) => T;

/**
 * A typed column that the owner grows (geometrically) before writing; `data` changes on growth.
 * It grows either by a copy (`resize`) or, where the owner keeps track of the offset, by starting
 * a new block (`spill`) that `join` later puts together with the filled ones in one array.
 */
export class StagingColumn<T extends TypedArray> {
  data: T;
  /** Blocks filled before `data`, in order (each full to its length). */
  private readonly filled: T[] = [];
  private readonly make: TypedArrayConstructor<T>;

  constructor(make: TypedArrayConstructor<T>, capacity = 1024) {
    this.make = make;
    this.data = new make(capacity);
  }

  /** Makes room for index `i` and returns the (possibly new) array. */
  at(i: number): T {
    if (i >= this.data.length) {
      this.resize(Math.max(i + 1, this.data.length * 2));
    }
    return this.data;
  }

  /** Keeps `data` (full) as a filled block and starts a new one of `capacity` values. */
  spill(capacity: number): void {
    this.filled.push(this.data);
    this.data = new this.make(capacity);
  }

  /** Puts the filled blocks and the first `count` values in total into one array of that length. */
  join(count: number): void {
    if (this.filled.length === 0) {
      return;
    }
    const joined = new this.make(count);
    let at = 0;
    for (const block of this.filled) {
      joined.set(block, at);
      at += block.length;
    }
    joined.set(this.data.subarray(0, count - at), at);
    this.filled.length = 0;
    this.data = joined;
  }

  /** Frees the data (an empty array in its place). */
  release(): void {
    this.data = new this.make(0);
  }

  /**
   * Moves the first `used` values (all by default) to a new array of `capacity`. Only those are
   * copied: the rest of a fresh array is never touched, so its pages stay unmapped until written.
   */
  resize(capacity: number, used = this.data.length): void {
    const next = new this.make(capacity);
    next.set(this.data.subarray(0, Math.min(capacity, used)));
    this.data = next;
  }
}
