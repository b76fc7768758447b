import { StagingColumn } from '../staging-columns.ts';
import { KeyedPoints } from './keyed-points.ts';

/**
 * Async begin and end events (b/e, and the older S/F) of a generic Chrome trace: each begin is
 * staged as a range with no end yet; `pair` gives it the end of its key (id within a process for
 * b/e, category, name and id across processes for S/F, as catapult pairs them) in time order
 * (file order at one time), the latest open begin of the key first, so an end written before
 * its begin still finds it.
 */
export class AsyncEvents extends KeyedPoints {
  /** The staged range of a begin; -1 for an end. */
  private readonly begin = new StagingColumn(Int32Array);
  /** Ends that found no begin of their key. */
  unmatchedEnds = 0;

  /** A begin staged as range `begin`, or an end (`begin` -1), of `key` at `atNs`. */
  add(key: string, atNs: number, begin: number): void {
    const i = this.addPoint(key, atNs);
    this.begin.at(i)[i] = begin;
  }

  /** Sets each paired begin's end in `endNs` (staged ranges' starts in `startNs`); the begins. */
  pair(startNs: Float64Array, endNs: Float64Array): number[] {
    const order = Array.from({ length: this.n }, (_, i) => i);
    const at = this.atNs.data;
    order.sort((a, b) => at[a]! - at[b]! || a - b);
    const open: number[][] = Array.from({ length: this.keyCount }, () => []);
    const begins: number[] = [];
    for (const p of order) {
      const stack = open[this.key.data[p]!]!;
      const begin = this.begin.data[p]!;
      if (begin >= 0) {
        stack.push(begin);
        begins.push(begin);
      } else {
        const b = stack.pop();
        if (b === undefined) {
          this.unmatchedEnds++;
        } else {
          endNs[b] = Math.max(at[p]!, startNs[b]!);
        }
      }
    }
    return begins;
  }
}

/** Async rows of one category in one process at most; later overlapping ranges share the last. */
export const maxAsyncRows = 64;

/**
 * Rows for ranges that may overlap without nesting (async requests in flight together): each
 * range, in start order, goes on the lowest row whose last range ended by its start (a range
 * with no end, NaN, holds its row to the end), at most `maxAsyncRows`. Returns the row of each
 * of `ranges`. Two heaps keep it n log n: rows in use by their end, free rows by number.
 */
export function packRows(
  ranges: readonly number[],
  startNs: Float64Array,
  endNs: Float64Array,
): number[] {
  const order = ranges
    .map((_, j) => j)
    .sort((a, b) => startNs[ranges[a]!]! - startNs[ranges[b]!]! || a - b);
  const busy = new MinHeap<[number, number]>((x, y) => x[0] - y[0]); // [end, row]
  const free = new MinHeap<number>((x, y) => x - y);
  let rowCount = 0;
  const rows = new Array<number>(ranges.length).fill(0);
  for (const j of order) {
    const i = ranges[j]!;
    const start = startNs[i]!;
    for (let top = busy.peek(); top !== undefined && top[0] <= start; top = busy.peek()) {
      free.push(busy.pop()![1]);
    }
    let row = free.pop();
    if (row === undefined) {
      row = rowCount < maxAsyncRows ? rowCount++ : maxAsyncRows - 1;
    }
    const end = endNs[i]!;
    busy.push([Number.isNaN(end) ? Number.POSITIVE_INFINITY : end, row]);
    rows[j] = row;
  }
  return rows;
}

/** A binary min-heap by `compare`. */
class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(items[i]!, items[parent]!) >= 0) {
        break;
      }
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && this.compare(items[l]!, items[m]!) < 0) {
          m = l;
        }
        if (r < items.length && this.compare(items[r]!, items[m]!) < 0) {
          m = r;
        }
        if (m === i) {
          break;
        }
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}
