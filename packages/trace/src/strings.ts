/** Interned strings: ops store a `nameId`, never a string. Id 0 is always the empty string. */
export class StringTable {
  private readonly values: string[] = [''];
  private readonly ids = new Map<string, number>([['', 0]]);

  get count(): number {
    return this.values.length;
  }

  intern(value: string): number {
    const existing = this.ids.get(value);
    if (existing !== undefined) {
      return existing;
    }
    const id = this.values.length;
    this.values.push(value);
    this.ids.set(value, id);
    return id;
  }

  get(id: number): string {
    const value = this.values[id];
    if (value === undefined) {
      throw new RangeError(`string id ${id} is out of range (the table has ${this.values.length})`);
    }
    return value;
  }

  /** Id of a string already interned, or undefined. */
  find(value: string): number | undefined {
    return this.ids.get(value);
  }

  /** Strings with ids in [from, to), for the codec. */
  slice(from: number, to: number = this.values.length): readonly string[] {
    return this.values.slice(from, to);
  }
}
