import type { TimelineView } from '@streamscope/timeline';
import { getSearchMatches } from '../data/search-registry.ts';
import { loadTiledFlows } from '../data/tiled-flows.ts';
import { getTiled } from '../data/tiled-loader.ts';
import { getTiledSearchBuckets } from '../data/tiled-search.ts';
import { getAnalysisFor, getTrace } from '../data/trace-registry.ts';
import { gapTableFrom } from '../lib/gap-table.ts';
import { windowMatches } from '../lib/search.ts';
import { appStore } from '../store/index.ts';
import type { AppState } from '../store/index.ts';
import { addIdleProbe } from '../test-mode/activity.ts';
import { forgetRendererStats, recordRendererStats } from '../test-mode/renderer-stats.ts';

export interface BindingOptions {
  /** Which registered trace this view draws. */
  readonly traceId: string;
  /** Key for renderer stats (the canvas' data-testid). */
  readonly viewId: string;
  /** Selection, search, area, pinned and hidden streams come from the store (the main view). */
  readonly followSelection: boolean;
  /** Fit again whenever the trace grows until the user moves the view (a live run). */
  readonly follow: boolean;
  /** Handle the store's fit requests with this view's own span (false: the page fits). */
  readonly ownFit: boolean;
}

/**
 * Connects a TimelineView to the store outside React's render cycle (STYLE.md B.5/B.6): the
 * view reads store changes through `subscribe`, and its viewport goes back to the store.
 * Returns the function that disconnects it. `markUserMoved` stops live following.
 */
export function bindTimeline(
  view: TimelineView,
  options: BindingOptions,
): { unbind: () => void; markUserMoved: () => void } {
  const { traceId } = options;
  let userMoved = false;
  let boundTrace: ReturnType<typeof getTrace> = undefined;
  let frames = 0;
  let gapsFor: unknown = undefined;
  // `state` is the store as it was before setTrace fits, so a link's window survives the fit.
  const applyTrace = (state: AppState): void => {
    const trace = getTrace(traceId);
    if (
      trace !== boundTrace &&
      trace !== undefined &&
      boundTrace !== undefined &&
      getTiled(traceId) !== undefined
    ) {
      // Tiled mode: another window of the same trace arrived; the view keeps its place.
      boundTrace = trace;
      view.replaceTrace(trace);
      applySelection(state);
    } else if (trace !== boundTrace) {
      boundTrace = trace;
      view.setTrace(trace);
      if (trace !== undefined && state.viewEndNs > state.viewStartNs) {
        // A link (or the other compared view) already set the window: keep it.
        view.setViewport({ startNs: state.viewStartNs, endNs: state.viewEndNs });
      } else if (trace !== undefined && !options.follow) {
        // A stored trace opens on its GPU activity (imports carry long host-only stretches).
        view.fitGpu();
      }
      applySelection(state);
      applyFilters(state);
    } else if (trace !== undefined) {
      view.invalidate();
      if (options.follow && !userMoved) {
        view.fit();
      }
      if (getTiled(traceId) !== undefined) {
        // Tiled mode: the server's flows of the selection were added to the window.
        applySelection(state);
      }
    }
    const analysis = getAnalysisFor(traceId);
    if (analysis !== undefined && analysis !== gapsFor) {
      gapsFor = analysis;
      view.setGaps(gapTableFrom(analysis.gaps));
      applySelection(state);
    }
  };

  const applySelection = (state: AppState): void => {
    if (!options.followSelection) {
      return;
    }
    view.setSelection(state.selectedOp ?? undefined);
    view.setHighlightedOps(state.opSet.length > 0 ? state.opSet : undefined);
    view.setSelectedRange(state.selectedRange ?? undefined);
    view.setSelectedGap(state.selectedGap ?? undefined);
    if (getTiled(traceId) !== undefined) {
      applyTiledMarks(state);
    } else {
      const matches = getSearchMatches(state.traceId);
      view.setSearchMatches(
        matches.length > 0 ? matches : undefined,
        matches[state.searchMatchIndex],
      );
    }
    view.setAreaSelection(state.area ?? undefined);
    view.setMark(state.mark ?? undefined);
  };

  // Tiled mode: the whole trace's matches as the server's buckets over tiles, the window's own
  // matches over its exact ops, and the selected op's flows fetched from the server.
  const applyTiledMarks = (state: AppState): void => {
    view.setSearchBuckets(getTiledSearchBuckets(traceId));
    const trace = getTrace(traceId);
    const local =
      trace === undefined ? undefined : windowMatches(trace, state.searchQuery, state.searchRegex);
    view.setSearchMatches(local !== undefined && local.length > 0 ? local : undefined, undefined);
    if (state.selectedOp !== null) {
      void loadTiledFlows(traceId, state.selectedOp);
    }
  };

  const applyFilters = (state: AppState): void => {
    if (!options.followSelection) {
      return;
    }
    view.setPinnedTracks(state.pinnedTracks);
    view.setHiddenTracks(state.hiddenTracks);
    view.setCollapsedGroups(state.collapsedGroups);
  };

  const offViewport = view.onViewportChange((viewport) => {
    appStore.getState().setViewport(viewport.startNs, viewport.endNs);
  });
  applyTrace(appStore.getState());

  const unsubscribe = appStore.subscribe((state, previous) => {
    if (state.dataVersion !== previous.dataVersion) {
      applyTrace(state);
    }
    if (state.viewStartNs !== previous.viewStartNs || state.viewEndNs !== previous.viewEndNs) {
      const current = view.getViewport();
      if (
        state.viewEndNs > state.viewStartNs &&
        (current.startNs !== state.viewStartNs || current.endNs !== state.viewEndNs)
      ) {
        view.setViewport({ startNs: state.viewStartNs, endNs: state.viewEndNs });
      }
    }
    if (state.fitRequest !== previous.fitRequest && options.ownFit) {
      userMoved = false;
      if (state.fitMode === 'all' || options.follow) {
        view.fit();
      } else {
        view.fitGpu();
      }
    }
    if (
      state.selectedOp !== previous.selectedOp ||
      state.opSet !== previous.opSet ||
      state.selectedRange !== previous.selectedRange ||
      state.selectedGap !== previous.selectedGap ||
      state.searchMatchIndex !== previous.searchMatchIndex ||
      state.searchMatchCount !== previous.searchMatchCount ||
      state.searchQuery !== previous.searchQuery ||
      state.area !== previous.area ||
      state.mark !== previous.mark
    ) {
      applySelection(state);
    }
    if (
      state.pinnedTracks !== previous.pinnedTracks ||
      state.hiddenTracks !== previous.hiddenTracks ||
      state.collapsedGroups !== previous.collapsedGroups
    ) {
      applyFilters(state);
    }
  });

  const offFrame = view.onFrame((stats) => {
    frames++;
    const viewport = view.getViewport();
    recordRendererStats(options.viewId, {
      drawnOps: stats.drawnOps,
      rects: stats.rects,
      labels: stats.labels,
      paintedColumnsPx: stats.paintedColumnsPx,
      frameMs: stats.frameMs,
      lod: stats.lod,
      fromTiles: stats.fromTiles,
      searchMarks: stats.searchMarks,
      gaps: stats.gaps,
      selectionFlows: view.selectionFlows().length,
      traceOps: getTrace(traceId)?.ops.count ?? 0,
      frames,
      viewStartNs: viewport.startNs,
      viewEndNs: viewport.endNs,
    });
  });
  const offProbe = addIdleProbe(() => view.isIdle());

  return {
    unbind: () => {
      offViewport();
      offFrame();
      offProbe();
      unsubscribe();
      forgetRendererStats(options.viewId);
    },
    markUserMoved: () => {
      userMoved = true;
    },
  };
}
