import { useEffect, useRef } from 'react';
import { AnalysisPanel } from '../components/AnalysisPanel.tsx';
import { AreaTable } from '../components/AreaTable.tsx';
import { DetailsPanel } from '../components/DetailsPanel.tsx';
import { HoverTooltip } from '../components/HoverTooltip.tsx';
import { ImportWarnings } from '../components/ImportWarnings.tsx';
import { GapTooltip } from '../components/GapTooltip.tsx';
import { MarkChip } from '../components/MarkChip.tsx';
import { RunStatus } from '../components/RunStatus.tsx';
import { RangeTooltip } from '../components/RangeTooltip.tsx';
import { ShortcutHelp } from '../components/ShortcutHelp.tsx';
import { StreamPanel } from '../components/StreamPanel.tsx';
import { TimelineCanvas } from '../components/TimelineCanvas.tsx';
import { TraceToolbar } from '../components/TraceToolbar.tsx';
import { useFillHeight } from '../components/use-fill-height.ts';
import { openLinkedTrace, stopFollowing } from '../data/trace-loader.ts';
import { formatCount } from '../lib/format.ts';
import { appStore } from '../store/index.ts';
import { useApp } from '../store/use-app.ts';
import { getTiled } from '../data/tiled-loader.ts';
import { traceViewId } from '../canvas/view-registry.ts';
import { getTrace } from '../data/trace-registry.ts';

const viewId = traceViewId;

export function TracePage() {
  const routeTraceId = useApp((s) => (s.route.page === 'trace' ? s.route.traceId : null));
  const status = useApp((s) => s.traceStatus);
  const error = useApp((s) => s.traceError);
  const traceId = useApp((s) => s.traceId);
  useApp((s) => s.dataVersion);
  const mainRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (routeTraceId === null) {
      return;
    }
    const state = appStore.getState();
    const route = state.route;
    if (state.traceId !== routeTraceId || state.traceStatus === 'error') {
      state.openTrace(routeTraceId);
    }
    if (route.page === 'trace' && route.view !== undefined) {
      state.setViewport(route.view.startNs, route.view.endNs);
    }
    if (route.page === 'trace' && route.selectedOp !== undefined) {
      state.selectOp(route.selectedOp);
    }
    if (route.page === 'trace') {
      state.setTrackFilters({
        pinnedTracks: route.pinned ?? [],
        hiddenTracks: route.hidden ?? [],
        collapsedGroups: route.collapsed ?? [],
      });
      state.setTrackLanes(route.lanes ?? []);
    }
    void openLinkedTrace(routeTraceId);
    // Leaving a run that is still going closes its subscription (a reopen follows it again).
    return () => stopFollowing();
  }, [routeTraceId]);

  const liveRunId = useApp((s) => s.activeRun?.runId ?? null);
  const following = liveRunId !== null && liveRunId === routeTraceId;
  const trace = getTrace(traceId);
  const ready =
    traceId !== null &&
    traceId === routeTraceId &&
    trace !== undefined &&
    (status === 'ready' || status === 'live');
  useFillHeight(mainRef, 420, ready);
  return (
    <div className="trace-layout">
      <TraceToolbar viewId={viewId} />
      <ShortcutHelp />
      {status === 'loading' && (
        <p className="muted" data-testid="trace-loading">
          Loading the trace…
        </p>
      )}
      {status === 'error' && (
        <div className="error-box" role="alert" data-testid="trace-error">
          This trace could not be opened: {error}
        </div>
      )}
      {ready && (
        <div className="trace-body">
          <div className="trace-main stack fill" ref={mainRef}>
            <div className="row small muted" data-testid="trace-summary">
              <span>
                <span data-testid="trace-op-total">
                  {formatCount(getTiled(traceId)?.meta.opCount ?? trace.ops.count)}
                </span>{' '}
                ops on {trace.tracks.length} tracks · {trace.meta.producer} · wheel over the Gantt
                or W/S zoom, over the labels it scrolls · drag or A/D pan · shift-drag selects an
                area ·{' '}
                <button
                  type="button"
                  className="link"
                  data-testid="open-help"
                  onClick={() => appStore.getState().setHelpOpen(true)}
                >
                  ? all keys
                </button>
              </span>
              <MarkChip />
            </div>
            {following && <RunStatus stopLabel="Stop" />}
            <ImportWarnings warnings={trace.meta.warnings ?? []} testId="trace-warnings" />
            <div className="timeline-host">
              <TimelineCanvas traceId={traceId} viewId={viewId} follow={status === 'live'} />
              <HoverTooltip />
              <RangeTooltip />
              <GapTooltip />
            </div>
            <div className="bottom-panels">
              <DetailsPanel />
              <AreaTable />
            </div>
          </div>
          <aside className="trace-side stack">
            <StreamPanel />
            <AnalysisPanel />
          </aside>
        </div>
      )}
    </div>
  );
}
