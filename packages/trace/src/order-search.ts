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
  return boundOf(order, values, target, false, lo, hi);
}

/** The first position k in [lo, hi) with `values[order[k]] > target`, or `hi` (as lowerBoundOf). */
export function upperBoundOf(
  order: Uint32Array,
  values: ArrayLike<number>,
  target: number,
  lo = 0,
  hi = order.length,
): number {
  return boundOf(order, values, target, true, lo, hi);
}

/** The first position in [lo, hi) not below `target`, or (`pastEqual`) above it. */
function boundOf(
  order: Uint32Array,
  values: ArrayLike<number>,
  target: number,
  pastEqual: boolean,
  lo: number,
  hi: number,
): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = values[order[mid]!]!;
    if (v < target || (pastEqual && v === target)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
