import type { TimelineView } from '@streamscope/timeline';

/** The trace page's main timeline. */
export const traceViewId = 'timeline';

/** Mounted views by id, for the export buttons (a view is not React state). */
const views = new Map<string, TimelineView>();

export function registerView(id: string, view: TimelineView): void {
  views.set(id, view);
}

export function unregisterView(id: string, view: TimelineView): void {
  if (views.get(id) === view) {
    views.delete(id);
  }
}

export function getView(id: string): TimelineView | undefined {
  return views.get(id);
}
