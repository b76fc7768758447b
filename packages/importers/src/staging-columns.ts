type TypedArray = Float64Array | Int32Array | Uint32Array | Uint8Array;
type TypedArrayConstructor<T extends TypedArray> = new (length: number) => T;

/** A typed column that the owner grows (geometrically) before writing; `data` changes on growth. */
export class StagingColumn<T extends TypedArray> {
  data: T;
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
