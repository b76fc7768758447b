import type { RowKind } from '@streamscope/timeline';
import { getView } from '../canvas/view-registry.ts';

/** One row of a mounted timeline as it is on screen now, for e2e tests. */
export interface TimelineRowProbe {
  readonly kind: RowKind;
  readonly label: string;
  /** Track index; -1 for a group header. */
  readonly track: number;
  /** Top of the row, CSS px from the canvas top (rows scrolled out of view included). */
  readonly topPx: number;
  readonly heightPx: number;
}

/** The rows of the timeline with this data-testid, top to bottom, or undefined when not mounted. */
export function timelineRows(viewId: string): TimelineRowProbe[] | undefined {
  const view = getView(viewId);
  if (view === undefined) {
    return undefined;
  }
  return view.getLayout().rows.map((row) => ({
    kind: row.kind,
    label: row.label,
    track: row.track,
    topPx: view.rowTopPx(row),
    heightPx: row.heightPx,
  }));
}
