type TypedArray = Float64Array | Float32Array | Uint32Array | Int32Array | Uint16Array | Uint8Array;

interface TypedArrayConstructor<T extends TypedArray> {
  new (length: number): T;
}

/**
 * A typed column that grows geometrically. Writes past `length` never disturb a view taken
 * earlier: growth copies into a new buffer, and views are `subarray(0, count)` of whichever
 * buffer was current when they were taken.
 */
export class GrowableColumn<T extends TypedArray> {
  private data: T;

  constructor(
    private readonly ctor: TypedArrayConstructor<T>,
    initialCapacity = 1024,
  ) {
    this.data = new ctor(Math.max(16, initialCapacity));
  }

  get capacity(): number {
    return this.data.length;
  }

  get buffer(): T {
    return this.data;
  }

  ensure(capacity: number): T {
    if (capacity > this.data.length) {
      let next = this.data.length * 2;
      while (next < capacity) {
        next *= 2;
      }
      const grown = new this.ctor(next);
      grown.set(this.data);
      this.data = grown;
    }
    return this.data;
  }

  /** Grows the backing store to exactly `capacity` when it holds less (one copy, no doubling). */
  reserve(capacity: number): void {
    if (capacity > this.data.length) {
      const grown = new this.ctor(capacity);
      grown.set(this.data);
      this.data = grown;
    }
  }

  /** Takes `data` as the backing store, without a copy (the caller gives it up). */
  adopt(data: ArrayBufferView): void {
    if (!(data instanceof this.ctor)) {
      throw new TypeError(`a ${this.ctor.name} column cannot take a ${data.constructor.name}`);
    }
    this.data = data;
  }

  /** Shrinks the backing store to exactly `count` (after a bulk load). */
  trim(count: number): void {
    if (this.data.length !== count) {
      const trimmed = new this.ctor(Math.max(1, count));
      trimmed.set(this.data.subarray(0, count));
      this.data = trimmed;
    }
  }

  view(count: number): T {
    return this.data.subarray(0, count) as T;
  }
}
