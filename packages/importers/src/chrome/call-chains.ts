import { IdHashMap } from '../id-hash-map.ts';

/**
 * Correlation id → the API calls that carry it, in the order they were read: the first by id,
 * the rest chained through `next`. Built once every call is known, in one pass over their ids
 * into a typed-array hash table sized for them at once: inserting each call as it was read, the
 * table grew by doubling and every insert was a cache miss among the event scan's work. (Kineto's
 * ids are not dense enough for a table indexed by id: CUPTI numbers every API call and the
 * profiler records about one in ten, so such a table would take ~40 bytes a call.)
 */
export class CallChains {
  /** The next call with the same id, or -1. */
  readonly next: Int32Array;
  private readonly firstById: IdHashMap;

  /** `ids[0, count)`: the calls' correlation ids. */
  constructor(ids: Uint32Array, count: number) {
    this.next = new Int32Array(count).fill(-1);
    this.firstById = new IdHashMap(count);
    chain(ids, count, this.firstById, this.next);
  }

  /** The first call with correlation id `id`, or -1. */
  first(id: number): number {
    return this.firstById.get(id);
  }
}

function chain(ids: Uint32Array, count: number, first: IdHashMap, next: Int32Array): void {
  const tail = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const head = first.putIfAbsent(ids[i]!, i);
    if (head < 0) {
      tail[i] = i;
    } else {
      next[tail[head]!] = i;
      tail[head] = i;
    }
  }
}
