import { gutterLabel } from '@streamscope/timeline';
import type { TimelineView } from '@streamscope/timeline';
import { appStore } from '../store/index.ts';

/**
 * Over a stream's queue-depth row, the depth under the pointer; over its launch row, the range
 * that launched the ops there (tooltips in HoverTooltip). Over the label column, a row label the gutter had to cut short shows whole in a tooltip
 * (issue #21: long GPU and stream names). Returns the function that removes the listeners.
 */
export function attachLabelHover(canvas: HTMLCanvasElement, view: TimelineView): () => void {
  const onMove = (event: PointerEvent): void => {
    const lane = view.trackLaneAt(event.offsetX, event.offsetY);
    appStore.getState().hoverLane(
      lane === undefined
        ? null
        : {
            kind: lane.kind,
            track: lane.track,
            value: lane.kind === 'queue' ? lane.depth : lane.range,
            timeNs: view.timeAtX(event.offsetX),
            clientX: event.clientX,
            clientY: event.clientY,
          },
    );
    const gutterPx = view.getGutterPx();
    const row = event.offsetX < gutterPx ? view.rowAt(event.offsetY) : undefined;
    const label = row === undefined ? undefined : gutterLabel(row, gutterPx);
    appStore
      .getState()
      .hoverLabel(
        row !== undefined && label?.cut === true
          ? { text: row.label, clientX: event.clientX, clientY: event.clientY }
          : null,
      );
  };
  const onLeave = (): void => {
    appStore.getState().hoverLabel(null);
    appStore.getState().hoverLane(null);
  };
  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerleave', onLeave);
  return () => {
    canvas.removeEventListener('pointermove', onMove);
    canvas.removeEventListener('pointerleave', onLeave);
    appStore.getState().hoverLabel(null);
  };
}
