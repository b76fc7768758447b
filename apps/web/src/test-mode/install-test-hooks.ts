import { appStore } from '../store/index.ts';
import { pendingActivity, touchActivity, waitForIdle } from './activity.ts';
import { probeOps, selectionProbe } from './op-probe.ts';
import type { OpProbe } from './op-probe.ts';
import { latestRendererStats } from './renderer-stats.ts';
import type { RendererStatsSnapshot } from './renderer-stats.ts';
import { timelineRows } from './timeline-rows.ts';
import type { TimelineRowProbe } from './timeline-rows.ts';

declare global {
  interface Window {
    /** Set by Playwright's init script (e2e/fixtures.ts) before the app loads. */
    __STREAMSCOPE_TEST__?: boolean;
    __waitForIdle?: () => Promise<void>;
    __rendererStats?: () => Readonly<Record<string, RendererStatsSnapshot>>;
    __pendingActivity?: () => number;
    /** A mounted timeline's rows on screen (kind, label, track, top, height), by data-testid. */
    __timelineRows?: (viewId: string) => TimelineRowProbe[] | undefined;
    /** Ops of the open trace: times, name and centre on the timeline `viewId`. */
    __ops?: (viewId: string, ops: readonly number[]) => OpProbe[];
    /** The selected op, the set selected together, and the trace's span. */
    __selection?: () => ReturnType<typeof selectionProbe>;
  }
}

/**
 * In test mode, expose the idle signal, renderer statistics and the timelines' rows for
 * Playwright and the browser benchmark. Store changes count as activity so a test waits for their consequences.
 */
export function installTestHooks(): void {
  if (window.__STREAMSCOPE_TEST__ !== true) {
    return;
  }
  appStore.subscribe(() => touchActivity());
  window.__waitForIdle = () => waitForIdle();
  window.__rendererStats = () => latestRendererStats();
  window.__pendingActivity = () => pendingActivity();
  window.__timelineRows = (viewId) => timelineRows(viewId);
  window.__ops = (viewId, ops) => probeOps(viewId, ops);
  window.__selection = () => selectionProbe();
}
