import { IdHashMap } from '../id-hash-map.ts';

/** Ids get a table indexed by id while the largest stays below this many slots per call plus slack. */
const denseSlotsPerCall = 1.5;
const denseSlack = 1 << 16;

/**
 * Correlation id → the API calls that carry it, in the order they were read: the first by id,
 * the rest chained through `next`. Built once every call is known, in one pass over their ids:
 * kineto numbers its correlation ids densely, so most traces get a table indexed by id, written
 * almost in order, instead of a hash table where each of millions of calls is a cache miss;
 * sparse ids (a file joined from several processes, say) get the typed-array hash table.
 */
export class CallChains {
  /** The next call with the same id, or -1. */
  readonly next: Int32Array;
  private readonly dense: Int32Array | undefined;
  private readonly sparse: IdHashMap | undefined;

  /** `ids[0, count)`: the calls' correlation ids (none of them 0). */
  constructor(ids: Uint32Array, count: number) {
    this.next = new Int32Array(count).fill(-1);
    const max = maxOf(ids, count);
    if (max < denseSlotsPerCall * count + denseSlack) {
      this.dense = new Int32Array(max + 1).fill(-1);
      chainDense(ids, count, this.dense, this.next);
    } else {
      this.sparse = new IdHashMap(count);
      chainSparse(ids, count, this.sparse, this.next);
    }
  }

  /** The first call with correlation id `id`, or -1. */
  first(id: number): number {
    const dense = this.dense;
    if (dense !== undefined) {
      return id < dense.length ? dense[id]! : -1;
    }
    return this.sparse!.get(id);
  }
}

function maxOf(ids: Uint32Array, count: number): number {
  let max = 0;
  for (let i = 0; i < count; i++) {
    max = Math.max(max, ids[i]!);
  }
  return max;
}

// The two ways of chaining are functions of their own, each compiled for its one loop.
function chainDense(ids: Uint32Array, count: number, first: Int32Array, next: Int32Array): void {
  const tail = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const id = ids[i]!;
    const head = first[id]!;
    if (head < 0) {
      first[id] = i;
      tail[i] = i;
    } else {
      next[tail[head]!] = i;
      tail[head] = i;
    }
  }
}

function chainSparse(ids: Uint32Array, count: number, first: IdHashMap, next: Int32Array): void {
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
