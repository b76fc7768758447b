/**
 * The first position k in [lo, hi) with `values[order[k]] >= target`, or `hi` when there is
 * none: `order` lists indices into `values` in ascending order of their values (a track's ops
 * by start, ops by correlation id).
 */
export function lowerBoundOf(
  order: Uint32Array,
  values: ArrayLike<number>,
  target: number,
  lo = 0,
  hi = order.length,
): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[order[mid]!]! < target) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** The first position k in [0, order.length) with `values[order[k]] > target` (as lowerBoundOf). */
export function upperBoundOf(
  order: Uint32Array,
  values: ArrayLike<number>,
  target: number,
): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[order[mid]!]! <= target) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
