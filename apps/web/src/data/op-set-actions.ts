import { inTimeOrder, showTargetOf, toggleInSet } from '../lib/op-set.ts';
import { appStore } from '../store/index.ts';
import { getTrace } from './trace-registry.ts';
import { showTarget } from './show-window.ts';
import { zoomToOp } from './view-actions.ts';

/**
 * Selects every op of `ops` (a finding's, say) as one set in start order (one op: selects it),
 * and moves the view by the rule tiled mode's "show" uses too (`showWindow`): all of them when
 * the first is readable so, else the first. The first op is current; next/previous step from it.
 */
export function showOpSet(ops: ArrayLike<number>, source: string | null): void {
  const state = appStore.getState();
  const trace = getTrace(state.traceId);
  if (trace === undefined) {
    return;
  }
  const columns = trace.ops.columns();
  const ordered = inTimeOrder(ops, columns.startNs.subarray(0, columns.count));
  if (ordered.length === 0) {
    return;
  }
  showTarget(showTargetOf(ordered, columns.startNs, columns.endNs));
  if (ordered.length === 1) {
    state.selectOp(ordered[0]!);
    return;
  }
  state.selectOpSet(ordered, 0, source);
}

/** Ctrl/Cmd-click: adds `op` to the selected set, or takes it out when it is in. */
export function toggleOpInSelection(op: number): void {
  const state = appStore.getState();
  const trace = getTrace(state.traceId);
  if (trace === undefined || op < 0 || op >= trace.ops.count) {
    return;
  }
  const columns = trace.ops.columns();
  const next = toggleInSet(
    state.opSet,
    state.selectedOp,
    op,
    columns.startNs.subarray(0, columns.count),
  );
  // The clicked op becomes current when it was added; after a removal the one at its place.
  const added = next.indexOf(op);
  const index = added >= 0 ? added : Math.min(Math.max(0, state.opSetIndex), next.length - 1);
  state.selectOpSet(next, index, null);
}

/** Steps to the next (+1) or previous (-1) op of the set, wrapping, and brings it into view. */
export function stepOpSet(delta: 1 | -1): void {
  const state = appStore.getState();
  if (state.opSet.length === 0) {
    return;
  }
  state.setOpSetIndex(state.opSetIndex + delta);
  const op = appStore.getState().selectedOp;
  if (op !== null) {
    zoomToOp(op, false);
  }
}
