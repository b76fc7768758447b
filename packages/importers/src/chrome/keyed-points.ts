import { StagingColumn } from '../staging-columns.ts';

/**
 * Points in time, each under a string key interned to a number as it comes: the flow events
 * (GenericFlows) and async events (AsyncEvents) of a generic trace, paired by their keys.
 */
export class KeyedPoints {
  protected n = 0;
  private readonly keys = new Map<string, number>();
  protected readonly key = new StagingColumn(Uint32Array);
  protected readonly atNs = new StagingColumn(Float64Array);

  get count(): number {
    return this.n;
  }

  /** How many distinct keys the points have. */
  protected get keyCount(): number {
    return this.keys.size;
  }

  /** Adds a point of `key` at `atNs`; returns its index. */
  protected addPoint(key: string, atNs: number): number {
    let k = this.keys.get(key);
    if (k === undefined) {
      k = this.keys.size;
      this.keys.set(key, k);
    }
    const i = this.n++;
    this.key.at(i)[i] = k;
    this.atNs.at(i)[i] = atNs;
    return i;
  }
}

/**
 * The first position p in `order[lo, hi)`, sorted by `startNs`, whose start is past `atNs`
 * (`orAt`: at or past it). So p − 1 is the last to start at or before `atNs` (before it).
 */
export function firstStartPast(
  order: ArrayLike<number>,
  lo: number,
  hi: number,
  startNs: Float64Array,
  atNs: number,
  orAt = false,
): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const s = startNs[order[mid]!]!;
    if (s < atNs || (!orAt && s === atNs)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
