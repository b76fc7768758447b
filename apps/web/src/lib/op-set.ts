import type { ShowTarget } from './zoom-math.ts';

/** `ops` without repeats, ordered by start time (ties by index): the order next/previous steps in. */
export function inTimeOrder(ops: ArrayLike<number>, startNs: Float64Array): number[] {
  const unique = [...new Set(Array.from(ops))].filter((op) => op >= 0 && op < startNs.length);
  return unique.sort((a, b) => startNs[a]! - startNs[b]! || a - b);
}

/**
 * The set after a ctrl/cmd-click on `op`: added when absent, removed when present. A set that is
 * empty starts from the op selected before (`base`), so the first ctrl-click makes a pair.
 */
export function toggleInSet(
  set: readonly number[],
  base: number | null,
  op: number,
  startNs: Float64Array,
): number[] {
  const from = set.length > 0 ? set : base === null ? [] : [base];
  const next = from.includes(op) ? from.filter((o) => o !== op) : [...from, op];
  return inTimeOrder(next, startNs);
}

/**
 * What a "show" of `ops` (in time order, at least one) brings into view: all of them, the first
 * current (`showWindow`).
 */
export function showTargetOf(
  ops: readonly number[],
  startNs: Float64Array,
  endNs: Float64Array,
): ShowTarget {
  let fromNs = Infinity;
  let toNs = -Infinity;
  for (const op of ops) {
    fromNs = Math.min(fromNs, startNs[op]!);
    toNs = Math.max(toNs, endNs[op]!);
  }
  const first = ops[0]!;
  return { fromNs, toNs, currentStartNs: startNs[first]!, currentEndNs: endNs[first]! };
}
