import type { TimeWindow } from './zoom-math.ts';
import { windowAround } from './zoom-math.ts';

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
 * Moves `view` inside [loNs, hiNs] keeping its width; a view wider than the bounds becomes the
 * bounds. So stepping through matches never shows negative time or time past the trace's end.
 */
export function clampWindow(view: TimeWindow, loNs: number, hiNs: number): TimeWindow {
  const spanNs = view.endNs - view.startNs;
  if (!(hiNs > loNs) || spanNs >= hiNs - loNs) {
    return hiNs > loNs ? { startNs: loNs, endNs: hiNs } : view;
  }
  if (view.startNs < loNs) {
    return { startNs: loNs, endNs: loNs + spanNs };
  }
  if (view.endNs > hiNs) {
    return { startNs: hiNs - spanNs, endNs: hiNs };
  }
  return view;
}

/**
 * A window showing every op of `ops` (first start to last end, 5% room each side), cut to
 * [loNs, hiNs]; undefined for an empty set.
 */
export function windowOfOps(
  ops: readonly number[],
  startNs: Float64Array,
  endNs: Float64Array,
  loNs: number,
  hiNs: number,
): TimeWindow | undefined {
  let fromNs = Infinity;
  let toNs = -Infinity;
  for (const op of ops) {
    fromNs = Math.min(fromNs, startNs[op]!);
    toNs = Math.max(toNs, endNs[op]!);
  }
  if (!Number.isFinite(fromNs)) {
    return undefined;
  }
  const padded = windowAround(fromNs, toNs, 0.05);
  const startCut = Math.max(loNs, padded.startNs);
  const endCut = hiNs > loNs ? Math.min(hiNs, padded.endNs) : padded.endNs;
  return endCut > startCut ? { startNs: startCut, endNs: endCut } : padded;
}
