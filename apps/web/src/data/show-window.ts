import { getView, traceViewId } from '../canvas/view-registry.ts';
import type { ShowTarget, TimeWindow } from '../lib/zoom-math.ts';
import { showWindow } from '../lib/zoom-math.ts';
import { appStore } from '../store/index.ts';
import { getTiled } from './tiled-loader.ts';
import { getTrace } from './trace-registry.ts';

/** Width of the trace page's plot (right of the row labels), CSS px; 1000 before it is mounted. */
function plotWidthPx(): number {
  const view = getView(traceViewId);
  if (view === undefined) {
    return 1000;
  }
  const { startNs, endNs } = view.getViewport();
  const widthPx = view.xAtTime(endNs) - view.xAtTime(startNs);
  return widthPx > 0 ? widthPx : 1000;
}

/** The span of the trace on screen: tiled mode's whole stored trace, not the window it holds. */
export function shownTraceSpanNs(traceId: string | null): number {
  return getTiled(traceId)?.spanNs ?? getTrace(traceId)?.spanNs() ?? 0;
}

/**
 * Moves the view to show `target` by the one rule of both modes (`showWindow`): readable, inside
 * the trace. With `keep` the zoom stays when the current op is readable at it (stepping).
 */
export function showTarget(target: ShowTarget, keep?: TimeWindow): TimeWindow {
  const state = appStore.getState();
  const view = showWindow(target, plotWidthPx(), shownTraceSpanNs(state.traceId), keep);
  state.setViewport(view.startNs, view.endNs);
  return view;
}
