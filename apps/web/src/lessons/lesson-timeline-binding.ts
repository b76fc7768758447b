import type { TimelineView, Viewport } from '@streamscope/timeline';
import { gapTableFrom } from '../lib/gap-table.ts';
import { addIdleProbe } from '../test-mode/activity.ts';
import { forgetRendererStats, recordRendererStats } from '../test-mode/renderer-stats.ts';
import type { LessonSideName } from './lesson-finding.ts';
import type { LessonState } from './lesson-store.ts';
import { lessonStore } from './lesson-store.ts';
import { lessonTrace } from './lesson-traces.ts';

// The before and after timelines share one time scale: both open on [0, the longer makespan]
// so bar lengths compare directly, and zooming or panning one moves the other the same way.

const views = new Map<LessonSideName, TimelineView>();
let syncing = false;

function spanOfBoth(): number {
  const before = lessonTrace('before')?.spanNs() ?? 0;
  const after = lessonTrace('after')?.spanNs() ?? 0;
  return Math.max(before, after, 1);
}

function applyToOthers(from: LessonSideName, viewport: Viewport): void {
  if (syncing) {
    return;
  }
  syncing = true;
  try {
    for (const [side, view] of views) {
      const current = view.getViewport();
      if (
        side !== from &&
        (current.startNs !== viewport.startNs || current.endNs !== viewport.endNs)
      ) {
        view.setViewport(viewport);
      }
    }
  } finally {
    syncing = false;
  }
}

/** Shows both traces whole, on the same scale. */
export function fitLessonTimelines(): void {
  const viewport: Viewport = { startNs: 0, endNs: spanOfBoth() };
  syncing = true;
  try {
    for (const view of views.values()) {
      view.setViewport(viewport);
    }
  } finally {
    syncing = false;
  }
}

/** Axis plus a little slack below the last row, CSS px. */
const chromeHeightPx = 40;
const minHeightPx = 120;
const maxHeightPx = 520;

/** Sizes the canvas to its rows, so a trace with few streams does not sit in blank space. */
function fitHeight(view: TimelineView, canvas: HTMLCanvasElement): void {
  const rowsPx = view.getScroll().contentHeightPx;
  const heightPx = Math.min(maxHeightPx, Math.max(minHeightPx, rowsPx + chromeHeightPx));
  canvas.style.height = `${heightPx}px`;
  view.resize();
}

function applyHighlight(view: TimelineView, side: LessonSideName, state: LessonState): void {
  const highlight = state.highlight;
  if (highlight === null || highlight.side !== side || highlight.opIndices.length === 0) {
    view.setSearchMatches(undefined);
    view.setSelection(undefined);
    return;
  }
  view.setSearchMatches(highlight.opIndices, highlight.opIndices[0]);
  view.setSelection(highlight.opIndices[0]);
}

/**
 * Connects one lesson timeline to the lesson store, outside React's render cycle: new traces,
 * the highlighted finding's ops, and the shared viewport. Returns the disconnect function.
 */
export function bindLessonTimeline(
  view: TimelineView,
  canvas: HTMLCanvasElement,
  side: LessonSideName,
  viewId: string,
): () => void {
  views.set(side, view);
  let frames = 0;
  const showTraces = (state: LessonState): void => {
    view.setTrace(lessonTrace(side));
    fitHeight(view, canvas);
    const gaps = state.summary?.[side].gaps;
    view.setGaps(gaps === undefined ? undefined : gapTableFrom(gaps));
    fitLessonTimelines();
    applyHighlight(view, side, state);
  };
  showTraces(lessonStore.getState());
  const unsubscribe = lessonStore.subscribe((state, previous) => {
    if (state.tracesVersion !== previous.tracesVersion) {
      showTraces(state);
    } else if (state.highlight !== previous.highlight) {
      applyHighlight(view, side, state);
    }
  });
  const offViewport = view.onViewportChange((viewport) => applyToOthers(side, viewport));
  const offFrame = view.onFrame((stats) => {
    frames++;
    const viewport = view.getViewport();
    recordRendererStats(viewId, {
      drawnOps: stats.drawnOps,
      rects: stats.rects,
      labels: stats.labels,
      paintedColumnsPx: stats.paintedColumnsPx,
      frameMs: stats.frameMs,
      lod: stats.lod,
      traceOps: lessonTrace(side)?.ops.count ?? 0,
      frames,
      viewStartNs: viewport.startNs,
      viewEndNs: viewport.endNs,
    });
  });
  const offProbe = addIdleProbe(() => view.isIdle());
  return () => {
    if (views.get(side) === view) {
      views.delete(side);
    }
    unsubscribe();
    offViewport();
    offFrame();
    offProbe();
    forgetRendererStats(viewId);
  };
}
