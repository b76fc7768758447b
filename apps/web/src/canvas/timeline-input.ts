import type { TimelineView } from '@streamscope/timeline';
import { select, zoom, zoomIdentity } from 'd3';
import type { D3ZoomEvent, ZoomTransform } from 'd3';
import { stepOpSet, toggleOpInSelection } from '../data/op-set-actions.ts';
import { toggleMark, zoomToSelection } from '../data/view-actions.ts';
import { gestureWindow, keyAction } from '../lib/zoom-math.ts';
import { appStore } from '../store/index.ts';
import type { AreaSelection } from '../store/selection-slice.ts';

/** Smallest drag, in px, that counts as an area selection rather than a click. */
const minAreaDragPx = 4;

// Inputs that take no typed text: a key pressed while one has focus (after ticking a box in the
// Tracks menu, say) is a shortcut.
const nonTypingInputTypes = new Set([
  'checkbox',
  'radio',
  'button',
  'submit',
  'reset',
  'image',
  'color',
  'file',
  'range',
]);

/** Whether a key pressed in `target` types into it (shortcuts then stay off). */
export function isTypingTarget(target: EventTarget | null): boolean {
  return (
    (target instanceof HTMLInputElement && !nonTypingInputTypes.has(target.type)) ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    (target instanceof HTMLElement && target.isContentEditable === true)
  );
}

/**
 * Tracks of the rows between two y positions (canvas CSS px), top to bottom: a stream's row or
 * its sync lane (its host waits) counts for the stream.
 */
export function tracksBetween(
  view: Pick<TimelineView, 'getLayout' | 'rowAt'>,
  y0: number,
  y1: number,
): number[] {
  const rows = view.getLayout().rows;
  const a = view.rowAt(Math.min(y0, y1));
  const b = view.rowAt(Math.max(y0, y1));
  const from = a === undefined ? 0 : rows.indexOf(a);
  const to = b === undefined ? rows.length - 1 : rows.indexOf(b);
  const tracks: number[] = [];
  for (let r = Math.max(0, from); r <= to; r++) {
    const row = rows[r];
    if (
      row !== undefined &&
      (row.kind === 'track' || row.kind === 'sync') &&
      !tracks.includes(row.track)
    ) {
      tracks.push(row.track);
    }
  }
  return tracks;
}

/**
 * Whether a wheel event scrolls the rows: over the track-label column (plain wheel, Perfetto's
 * track list) or with shift anywhere. Elsewhere the wheel zooms about the pointer; a pinch or
 * ctrl+wheel (ctrlKey set) always zooms.
 */
export function wheelScrollsRows(
  event: Pick<WheelEvent, 'shiftKey' | 'ctrlKey' | 'metaKey' | 'offsetX'>,
  gutterPx: number,
): boolean {
  if (event.ctrlKey || event.metaKey) {
    return false;
  }
  return event.shiftKey || event.offsetX < gutterPx;
}

/**
 * Wheel and pinch zoom, drag pan (d3-zoom), hover, click to select, shift-drag for an area,
 * and WASD by `event.code`. Returns the function that removes every listener.
 */
export function attachTimelineInput(
  canvas: HTMLCanvasElement,
  view: TimelineView,
  onUserMove: () => void,
  keyboard: boolean,
): () => void {
  const store = appStore;
  // d3-zoom keeps an absolute transform; each gesture is read relative to where it started.
  let t0: ZoomTransform = zoomIdentity;
  let last: ZoomTransform = zoomIdentity;
  let start = view.getViewport();
  let leftPx = 0;
  let rightPx = 1;
  let scrollTop0 = 0;
  // What the gesture last set: anything else means the view moved by other means meanwhile.
  let appliedWindow = start;
  let appliedScrollTopPx = 0;
  const anchor = (transform: ZoomTransform): void => {
    t0 = transform;
    last = transform;
    start = view.getViewport();
    leftPx = view.xAtTime(start.startNs);
    rightPx = view.xAtTime(start.endNs);
    scrollTop0 = view.getScroll().scrollTopPx;
    appliedWindow = start;
    appliedScrollTopPx = scrollTop0;
  };
  const behaviour = zoom<HTMLCanvasElement, unknown>()
    .filter((event: Event) => {
      if (event instanceof WheelEvent) {
        // Over the track labels (or with shift) the wheel scrolls the rows instead.
        return !wheelScrollsRows(event, view.getGutterPx());
      }
      if (event instanceof MouseEvent) {
        return !event.shiftKey && !event.ctrlKey && event.button === 0;
      }
      return true;
    })
    .on('start', (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => anchor(event.transform))
    .on('zoom', (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
      const t = event.transform;
      if (
        view.getViewport() !== appliedWindow ||
        view.getScroll().scrollTopPx !== appliedScrollTopPx
      ) {
        // Fit, a key or a link moved the view during the gesture (a wheel gesture lasts until
        // 150 ms without wheel events): go on from where the view is now.
        anchor(last);
      }
      view.setViewport(gestureWindow(start, leftPx, rightPx, (x) => t0.applyX(t.invertX(x))));
      if (t.k === t0.k) {
        view.setScrollTopPx(scrollTop0 - (t.y - t0.y));
      }
      appliedWindow = view.getViewport();
      appliedScrollTopPx = view.getScroll().scrollTopPx;
      last = t;
      onUserMove();
      store.getState().hoverOp(null);
      store.getState().hoverRange(null);
      store.getState().hoverGap(null);
    });
  const selection = select(canvas);
  selection.call(behaviour).on('dblclick.zoom', null);

  // The wheel over the rows zooms (d3-zoom); over the labels, or with shift, it scrolls the rows.
  const onWheel = (event: WheelEvent): void => {
    if (wheelScrollsRows(event, view.getGutterPx())) {
      event.preventDefault();
      view.setScrollTopPx(view.getScroll().scrollTopPx + (event.deltaY || event.deltaX));
    }
  };

  // Where the pointer is over the Gantt (CSS px), for W/S to zoom about; null when it is not.
  let pointerXPx: number | null = null;
  const trackPointer = (xPx: number): void => {
    const overGantt = xPx >= view.getGutterPx();
    pointerXPx = overGantt ? xPx : null;
    view.setCursor(overGantt ? view.timeAtX(xPx) : undefined);
  };

  let areaFrom: { x: number; y: number; timeNs: number } | null = null;
  let areaNow: AreaSelection | null = null;
  let suppressClick = false;

  const onPointerDown = (event: PointerEvent): void => {
    canvas.focus({ preventScroll: true });
    if (event.shiftKey && event.button === 0) {
      areaFrom = { x: event.offsetX, y: event.offsetY, timeNs: view.timeAtX(event.offsetX) };
      areaNow = null;
      canvas.setPointerCapture(event.pointerId);
      event.preventDefault();
    }
  };

  const onPointerMove = (event: PointerEvent): void => {
    trackPointer(event.offsetX);
    if (areaFrom !== null) {
      if (Math.abs(event.offsetX - areaFrom.x) < minAreaDragPx) {
        return;
      }
      const timeNs = view.timeAtX(event.offsetX);
      areaNow = {
        startNs: Math.min(areaFrom.timeNs, timeNs),
        endNs: Math.max(areaFrom.timeNs, timeNs),
        tracks: tracksBetween(view, areaFrom.y, event.offsetY),
      };
      // Drawn directly while dragging; the store (and the table) gets it on release.
      view.setAreaSelection(areaNow);
      return;
    }
    if (event.buttons !== 0) {
      return;
    }
    const hit = view.hitTest(event.offsetX, event.offsetY);
    const at = { clientX: event.clientX, clientY: event.clientY };
    store.getState().hoverOp(hit?.kind === 'op' ? { op: hit.op, ...at } : null);
    store.getState().hoverRange(hit?.kind === 'range' ? { range: hit.range, ...at } : null);
    // Where no op or range is, the shaded gap under the pointer.
    const gap =
      hit === undefined || hit.kind === 'row'
        ? view.gapAt(event.offsetX, event.offsetY)
        : undefined;
    store.getState().hoverGap(gap === undefined ? null : { gap, ...at });
  };

  const onPointerUp = (event: PointerEvent): void => {
    if (areaFrom === null) {
      return;
    }
    if (canvas.hasPointerCapture(event.pointerId)) {
      canvas.releasePointerCapture(event.pointerId);
    }
    if (areaNow !== null) {
      store.getState().selectArea(areaNow);
      suppressClick = true;
    }
    areaFrom = null;
    areaNow = null;
  };

  const onClick = (event: MouseEvent): void => {
    if (suppressClick) {
      suppressClick = false;
      return;
    }
    // A click on a folding header's label (a process, device, context, host threads or a
    // track's range lanes) collapses or expands it.
    const row = view.rowAt(event.offsetY);
    if (
      row?.groupKey !== undefined &&
      (row.kind === 'group' || event.offsetX < view.getGutterPx())
    ) {
      store.getState().toggleCollapsedGroup(row.groupKey);
      return;
    }
    const hit = view.hitTest(event.offsetX, event.offsetY);
    if ((event.ctrlKey || event.metaKey) && hit?.kind === 'op') {
      // Ctrl/Cmd-click adds the op to the selection, or takes it out.
      toggleOpInSelection(hit.op);
      return;
    }
    if (hit?.kind === 'range') {
      store.getState().selectRange(hit.range);
      return;
    }
    const gap =
      hit === undefined || hit.kind === 'row'
        ? view.gapAt(event.offsetX, event.offsetY)
        : undefined;
    if (gap !== undefined) {
      store.getState().selectGap(gap);
      return;
    }
    store.getState().selectOp(hit?.kind === 'op' ? hit.op : null);
    store.getState().selectRange(null);
    store.getState().selectGap(null);
  };

  const onLeave = (): void => {
    pointerXPx = null;
    view.setCursor(undefined);
    store.getState().hoverOp(null);
    store.getState().hoverRange(null);
    store.getState().hoverGap(null);
  };

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target)) {
      return;
    }
    if (event.key === '?') {
      event.preventDefault();
      store.getState().setHelpOpen(!store.getState().helpOpen);
      return;
    }
    if (event.code === 'BracketRight' || event.code === 'BracketLeft') {
      // ] and [ step through the ops selected together (a finding's, or ctrl-clicked ones).
      event.preventDefault();
      stepOpSet(event.code === 'BracketRight' ? 1 : -1);
      onUserMove();
      return;
    }
    if (event.code === 'KeyM') {
      event.preventDefault();
      toggleMark();
      return;
    }
    const action = keyAction(event.code);
    if (action === null) {
      return;
    }
    event.preventDefault();
    const viewport = view.getViewport();
    const left = view.xAtTime(viewport.startNs);
    const right = view.xAtTime(viewport.endNs);
    switch (action.kind) {
      case 'zoom':
        // About the pointer when it is over the Gantt (Perfetto), else about the middle.
        view.zoomAt(pointerXPx ?? (left + right) / 2, action.factor);
        onUserMove();
        break;
      case 'pan':
        // Whole px, so the view moves its pixel strips instead of painting them again.
        view.panByPx(Math.round((right - left) * action.fraction));
        onUserMove();
        break;
      case 'focus':
        zoomToSelection();
        onUserMove();
        break;
      case 'clear':
        if (store.getState().helpOpen) {
          store.getState().setHelpOpen(false);
          break;
        }
        store.getState().selectOp(null);
        store.getState().selectRange(null);
        store.getState().selectGap(null);
        store.getState().selectArea(null);
        break;
    }
    // The time under a pointer that stayed put changes when the view moves under it.
    if (pointerXPx !== null) {
      view.setCursor(view.timeAtX(pointerXPx));
    }
  };

  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('pointerdown', onPointerDown);
  canvas.addEventListener('pointermove', onPointerMove);
  canvas.addEventListener('pointerup', onPointerUp);
  canvas.addEventListener('pointerleave', onLeave);
  canvas.addEventListener('click', onClick);
  if (keyboard) {
    window.addEventListener('keydown', onKeyDown);
  }
  return () => {
    selection.on('.zoom', null);
    canvas.removeEventListener('wheel', onWheel);
    canvas.removeEventListener('pointerdown', onPointerDown);
    canvas.removeEventListener('pointermove', onPointerMove);
    canvas.removeEventListener('pointerup', onPointerUp);
    canvas.removeEventListener('pointerleave', onLeave);
    canvas.removeEventListener('click', onClick);
    window.removeEventListener('keydown', onKeyDown);
  };
}
