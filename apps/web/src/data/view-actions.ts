import { placeInTrace } from '@streamscope/timeline';
import { searchTrace } from '../lib/search.ts';
import { windowAround } from '../lib/zoom-math.ts';
import { appStore } from '../store/index.ts';
import { getSearchMatches, setSearchMatches } from './search-registry.ts';
import { showTarget, shownTraceSpanNs } from './show-window.ts';
import { getTiled } from './tiled-loader.ts';
import { runTiledSearch, stepTiledSearch } from './tiled-search.ts';
import { getTrace } from './trace-registry.ts';

/**
 * Shows op `op`, at least `minShownOpPx` wide and never before the trace's start or past its
 * end, keeping the zoom when it already shows the op that wide; selects it (`select` false: only
 * moves the view, for a set's next/previous).
 */
export function zoomToOp(op: number, select = true): void {
  const state = appStore.getState();
  const trace = getTrace(state.traceId);
  if (trace === undefined || op < 0 || op >= trace.ops.count) {
    return;
  }
  const ops = trace.ops.columns();
  const startNs = ops.startNs[op]!;
  const endNs = ops.endNs[op]!;
  const current = { startNs: state.viewStartNs, endNs: state.viewEndNs };
  showTarget(
    { fromNs: startNs, toNs: endNs, currentStartNs: startNs, currentEndNs: endNs },
    current.endNs > current.startNs ? current : undefined,
  );
  if (select) {
    state.selectOp(op);
  }
}

/** Zooms to the area selection, or else to the selected op. */
export function zoomToSelection(): void {
  const state = appStore.getState();
  if (state.area !== null) {
    state.setViewport(state.area.startNs, state.area.endNs);
    return;
  }
  if (state.selectedOp !== null) {
    const trace = getTrace(state.traceId);
    if (trace === undefined) {
      return;
    }
    const ops = trace.ops.columns();
    const view = placeInTrace(
      windowAround(ops.startNs[state.selectedOp]!, ops.endNs[state.selectedOp]!),
      shownTraceSpanNs(state.traceId),
    );
    state.setViewport(view.startNs, view.endNs);
  }
}

/**
 * Runs a search over the whole trace: its matches are marked; with `visitFirst` the view moves to
 * the first one (Enter), else it stays (as-you-type). An invalid regex is kept as the error.
 */
export function runSearch(query: string, regex = false, visitFirst = true): void {
  const state = appStore.getState();
  if (getTiled(state.traceId) !== undefined && state.traceId !== null) {
    setSearchMatches(state.traceId, new Uint32Array(0));
    void runTiledSearch(state.traceId, query, regex, visitFirst);
    return;
  }
  const trace = getTrace(state.traceId);
  const outcome =
    trace === undefined
      ? ({ ok: true, ops: new Uint32Array(0) } as const)
      : searchTrace(trace, query, regex);
  const found = outcome.ok ? outcome.ops : new Uint32Array(0);
  setSearchMatches(state.traceId, found);
  state.setSearchResult(query, found.length, regex, outcome.ok ? null : outcome.error);
  if (visitFirst && found.length > 0) {
    stepSearch(1);
  }
}

/** Moves to the next (+1) or previous (-1) match, wrapping around. */
export function stepSearch(delta: 1 | -1): void {
  const state = appStore.getState();
  if (getTiled(state.traceId) !== undefined && state.traceId !== null) {
    void stepTiledSearch(state.traceId, delta);
    return;
  }
  state.stepSearch(delta);
  const next = appStore.getState();
  const op = getSearchMatches(next.traceId)[next.searchMatchIndex];
  if (op !== undefined) {
    zoomToOp(op);
  }
}

/**
 * `M`: marks the selected op's range, else the selected NVTX/CPU-op range's, else the area's, else clears the mark (Perfetto's
 * convention). Pressing it again on the marked range clears it.
 */
export function toggleMark(): void {
  const state = appStore.getState();
  let range: { startNs: number; endNs: number } | null = null;
  if (state.selectedOp !== null) {
    const trace = getTrace(state.traceId);
    if (trace !== undefined && state.selectedOp < trace.ops.count) {
      const ops = trace.ops.columns();
      range = { startNs: ops.startNs[state.selectedOp]!, endNs: ops.endNs[state.selectedOp]! };
    }
  } else if (state.selectedRange !== null) {
    const ranges = getTrace(state.traceId)?.ranges.columns();
    if (ranges !== undefined && state.selectedRange < ranges.count) {
      range = {
        startNs: ranges.startNs[state.selectedRange]!,
        endNs: ranges.endNs[state.selectedRange]!,
      };
    }
  } else if (state.area !== null) {
    range = { startNs: state.area.startNs, endNs: state.area.endNs };
  }
  const same =
    range !== null &&
    state.mark !== null &&
    state.mark.startNs === range.startNs &&
    state.mark.endNs === range.endNs;
  state.setMark(same ? null : range);
}
