import type { TimelineView } from '@streamscope/timeline';

/** Zoom factor per wheel notch. */
const wheelZoomFactor = 1.25;

/** Wheel zooms around the pointer (shift+wheel pans); dragging pans. Returns the detach function. */
export function attachLessonTimelineInput(
  canvas: HTMLCanvasElement,
  view: TimelineView,
): () => void {
  let dragX: number | null = null;
  const onWheel = (event: WheelEvent): void => {
    event.preventDefault();
    const xPx = event.offsetX;
    if (event.shiftKey) {
      view.panByPx(event.deltaY + event.deltaX);
      return;
    }
    view.zoomAt(xPx, event.deltaY < 0 ? wheelZoomFactor : 1 / wheelZoomFactor);
  };
  const onDown = (event: PointerEvent): void => {
    dragX = event.clientX;
    canvas.setPointerCapture(event.pointerId);
  };
  const onMove = (event: PointerEvent): void => {
    if (dragX === null) {
      return;
    }
    // Dragging right shows earlier time: pan by the opposite of the pointer's motion.
    view.panByPx(dragX - event.clientX);
    dragX = event.clientX;
  };
  const onUp = (event: PointerEvent): void => {
    dragX = null;
    if (canvas.hasPointerCapture(event.pointerId)) {
      canvas.releasePointerCapture(event.pointerId);
    }
  };
  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('pointerdown', onDown);
  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerup', onUp);
  canvas.addEventListener('pointercancel', onUp);
  return () => {
    canvas.removeEventListener('wheel', onWheel);
    canvas.removeEventListener('pointerdown', onDown);
    canvas.removeEventListener('pointermove', onMove);
    canvas.removeEventListener('pointerup', onUp);
    canvas.removeEventListener('pointercancel', onUp);
  };
}
