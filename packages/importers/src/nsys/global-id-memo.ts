/**
 * nsys global ids (a pid or tid packed with a machine key) resolved to our process or lane
 * index, memoized. Consecutive events mostly share one id, so the last answer is kept apart
 * from the map. Ids beyond 2^53 arrive as decimal text and are resolved every time.
 */
export class GlobalIdMemo {
  private readonly byId = new Map<number, number>();
  private lastId = -1;
  private lastIndex = 0;

  constructor(private readonly resolve: (globalId: bigint | number) => number) {}

  indexOf(value: number, big: string | undefined): number {
    if (big !== undefined) {
      return this.resolve(BigInt(big));
    }
    if (value === this.lastId) {
      return this.lastIndex;
    }
    let index = this.byId.get(value);
    if (index === undefined) {
      index = this.resolve(value);
      this.byId.set(value, index);
    }
    this.lastId = value;
    this.lastIndex = index;
    return index;
  }
}
