import { nsOfX, xOfNs } from './frame-input.ts';
import { hitTest } from './hit-test.ts';
import { rowIndexAt, rowScreenTopPx } from './layout.ts';
import type { TimelineView } from './timeline-view-api.ts';
import type { ViewState } from './view-state.ts';
import { frameGeometry } from './view-state.ts';

type PickMethods = Pick<
  TimelineView,
  'timeAtX' | 'xAtTime' | 'rowAt' | 'rowTopPx' | 'hitTest' | 'gapAt' | 'trackLaneAt'
>;

/** What is under a point of the canvas: a time, a row, an op, a gap, a lane's value. */
export function pickMethods(s: ViewState): PickMethods {
  const timeAtX = (xPx: number): number => nsOfX(frameGeometry(s), xPx);
  const rowAt: PickMethods['rowAt'] = (yPx) =>
    s.layout.rows[rowIndexAt(s.layout, yPx - s.axisHeightPx, s.scrollTopPx)];
  return {
    timeAtX,
    xAtTime: (timeNs) => xOfNs(frameGeometry(s), timeNs),
    rowAt,
    rowTopPx: (row) => s.axisHeightPx + rowScreenTopPx(s.layout, row, s.scrollTopPx),
    hitTest(xPx, yPx) {
      if (s.trace === undefined || yPx < s.axisHeightPx) {
        return undefined;
      }
      const input = {
        ...frameGeometry(s),
        trace: s.trace,
        layout: s.layout,
        axisHeightPx: s.axisHeightPx,
        scrollTopPx: s.scrollTopPx,
      };
      return hitTest(input, xPx, yPx);
    },
    gapAt(xPx, yPx) {
      const row = rowAt(yPx);
      if (s.gapIndex === undefined || row?.kind !== 'track' || xPx < s.gutterPx) {
        return undefined;
      }
      const timeNs = timeAtX(xPx);
      if (!opsDrawnAt(s, timeNs)) {
        // Tiled mode outside a window of exact ops: gaps are not drawn there (the row shows
        // tiles), so a click there is meant for the ops under it, never a gap.
        return undefined;
      }
      const found = s.gapIndex.inWindow(row.track, timeNs, timeNs);
      const gaps = s.gapIndex.gaps;
      for (let k = 0; k < found.length; k++) {
        const g = found[k]!;
        if (gaps.startNs[g]! <= timeNs && timeNs <= gaps.endNs[g]!) {
          return g;
        }
      }
      return undefined;
    },
    trackLaneAt(xPx, yPx) {
      const row = rowAt(yPx);
      if (xPx < s.gutterPx || (row?.kind !== 'queue' && row?.kind !== 'launch')) {
        return undefined;
      }
      const timeNs = timeAtX(xPx);
      if (row.kind === 'queue') {
        const depth = s.trackLanes.queueDepthAt(row.track, timeNs);
        return { kind: 'queue', track: row.track, depth, timeNs };
      }
      const range = s.trackLanes.launchRangeAt(row.track, timeNs);
      return range < 0 ? undefined : { kind: 'launch', track: row.track, range };
    },
  };
}

/** Whether the rows at `timeNs` are drawn from the view's own ops (always, without tiles). */
function opsDrawnAt(s: ViewState, timeNs: number): boolean {
  if (s.tileSource === undefined) {
    return true;
  }
  const exact = s.tileSource.exactRange();
  return (
    !s.cache.fromTiles && exact !== undefined && exact.startNs <= timeNs && timeNs <= exact.endNs
  );
}
