/**
 * A closed range [lo, hi] that holds every value an expression can take while its loop
 * variables range over theirs. Bounds may be ±Infinity (a division by a range that holds 0).
 * A degenerate range (lo === hi) is computed with the very float operations evaluation uses,
 * so it equals the evaluated value exactly.
 */
export interface Interval {
  readonly lo: number;
  readonly hi: number;
}

/** Loop variables and the range each takes. */
export type BoundsScope = ReadonlyMap<string, Interval>;

const anything: Interval = { lo: -Infinity, hi: Infinity };

export function point(value: number): Interval {
  return { lo: value, hi: value };
}

export function isPoint(x: Interval): boolean {
  return x.lo === x.hi;
}

export function addI(a: Interval, b: Interval): Interval {
  return checked(a.lo + b.lo, a.hi + b.hi);
}

export function subI(a: Interval, b: Interval): Interval {
  return checked(a.lo - b.hi, a.hi - b.lo);
}

export function negI(a: Interval): Interval {
  return { lo: -a.hi, hi: -a.lo };
}

export function mulI(a: Interval, b: Interval): Interval {
  if (isPoint(a) && isPoint(b)) {
    return point(a.lo * b.lo);
  }
  return hull([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]);
}

/** a / b; the caller has ruled out a divisor that is exactly 0. */
export function divI(a: Interval, b: Interval): Interval {
  if (isPoint(a) && isPoint(b)) {
    return point(a.lo / b.lo);
  }
  if (b.lo <= 0 && b.hi >= 0) {
    return anything;
  }
  return hull([a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]);
}

/** a % b (JavaScript's remainder: the sign of a, smaller in size than both a and b). */
export function remI(a: Interval, b: Interval): Interval {
  if (isPoint(a) && isPoint(b)) {
    return point(a.lo % b.lo);
  }
  const size = Math.max(Math.abs(b.lo), Math.abs(b.hi));
  return { lo: a.lo >= 0 ? 0 : -Math.min(-a.lo, size), hi: a.hi <= 0 ? 0 : Math.min(a.hi, size) };
}

/** A function that never decreases in any argument (min, max, floor, ceil). */
export function monotoneI(fn: (args: number[]) => number, args: readonly Interval[]): Interval {
  return checked(fn(args.map((a) => a.lo)), fn(args.map((a) => a.hi)));
}

/** [lo, hi], or every value where the arithmetic lost track (∞ − ∞, 0 × ∞). */
function checked(lo: number, hi: number): Interval {
  return Number.isNaN(lo) || Number.isNaN(hi) ? anything : { lo, hi };
}

function hull(values: readonly number[]): Interval {
  if (values.some((v) => Number.isNaN(v))) {
    return anything;
  }
  return { lo: Math.min(...values), hi: Math.max(...values) };
}
