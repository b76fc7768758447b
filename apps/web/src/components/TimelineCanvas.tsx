import { createTimelineView } from '@streamscope/timeline';
import type { TimelineView } from '@streamscope/timeline';
import { memo, useEffect, useRef } from 'react';
import { attachLabelHover } from '../canvas/label-hover.ts';
import { attachRowScrollbar } from '../canvas/row-scrollbar.ts';
import { bindTimeline } from '../canvas/timeline-binding.ts';
import { attachTimelineInput } from '../canvas/timeline-input.ts';
import { bindTrackLanes } from '../canvas/track-lanes-binding.ts';
import { registerView, unregisterView } from '../canvas/view-registry.ts';
import { getTiled, tiledModeNote, watchTiles } from '../data/tiled-loader.ts';

interface TimelineCanvasProps {
  readonly traceId: string;
  /** data-testid of the canvas and the key of its renderer stats. */
  readonly viewId: string;
  /** Keep fitting the whole trace as a live run grows, until the user moves the view. */
  readonly follow?: boolean;
  /** Selection, search, area and stream filters from the store (false for compared views). */
  readonly followSelection?: boolean;
  /** The store's fit request fits this view's own trace (false: the page sets the window). */
  readonly ownFit?: boolean;
  /** WASD and Escape drive this view (only one view on a page should take them). */
  readonly keyboard?: boolean;
}

/** Mounts a timeline once per trace; React never re-renders the canvas (STYLE.md B.5). */
function TimelineCanvasInner({
  traceId,
  viewId,
  follow = false,
  followSelection = true,
  ownFit = true,
  keyboard = true,
}: TimelineCanvasProps) {
  const ref = useRef<HTMLCanvasElement>(null);
  const barRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const canvas = ref.current;
    const bar = barRef.current;
    if (canvas === null || bar === null) {
      return;
    }
    // Headers fold where the store's filters drive the view (the trace page's main view).
    const view: TimelineView = createTimelineView(canvas, { foldableHeaders: followSelection });
    // A big stored trace: stream rows from the server's tiles outside the loaded window.
    const tiled = getTiled(traceId);
    view.setTileSource(tiled);
    const offTiles =
      tiled === undefined ? undefined : watchTiles(traceId, () => view.requestRedraw());
    const binding = bindTimeline(view, { traceId, viewId, follow, followSelection, ownFit });
    const detachInput = attachTimelineInput(canvas, view, binding.markUserMoved, keyboard);
    const detachBar = attachRowScrollbar(bar, canvas, view);
    const detachLabels = attachLabelHover(canvas, view);
    // The Tracks menu's rows, on the main view (compared views keep to the ops).
    const unbindLanes = followSelection ? bindTrackLanes(view, traceId) : () => undefined;
    const observer = new ResizeObserver(() => view.resize());
    observer.observe(canvas);
    registerView(viewId, view);
    return () => {
      unregisterView(viewId, view);
      detachBar();
      detachLabels();
      unbindLanes();
      observer.disconnect();
      detachInput();
      binding.unbind();
      offTiles?.();
      view.dispose();
    };
  }, [traceId, viewId, follow, followSelection, ownFit, keyboard]);
  const tiled = getTiled(traceId) !== undefined;
  return (
    <>
      {tiled && (
        <p className="small muted" data-testid={`${viewId}-tiled-note`}>
          {tiledModeNote}
        </p>
      )}
      <canvas ref={ref} className="timeline-canvas" data-testid={viewId} tabIndex={0} />
      <div ref={barRef} className="row-scrollbar" data-testid={`${viewId}-scrollbar`} hidden />
    </>
  );
}

export const TimelineCanvas = memo(TimelineCanvasInner);
