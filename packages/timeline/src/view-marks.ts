import { GapIndex } from './gaps.ts';
import { SearchMarks } from './search-marks.ts';
import type { TimelineView } from './timeline-view-api.ts';
import type { ViewState } from './view-state.ts';
import { requestRedraw } from './view-state.ts';

type MarkMethods = Pick<
  TimelineView,
  | 'setSelectedGap'
  | 'setSelection'
  | 'selectionFlows'
  | 'setSelectedRange'
  | 'setSearchMatches'
  | 'setSearchBuckets'
  | 'setHighlightedOps'
  | 'setCurrentMatch'
  | 'setAreaSelection'
  | 'setCursor'
  | 'setMark'
  | 'setGaps'
>;

/** What the view marks over its ops: the selection and its flows, search, highlight, area, gaps. */
export function markMethods(s: ViewState): MarkMethods {
  return {
    setSelectedGap(gap) {
      s.selectedGap = gap;
      requestRedraw(s);
    },
    setSelection(op) {
      s.selectedOp = op;
      s.selectedFlows = op === undefined || s.trace === undefined ? [] : s.trace.flows.touching(op);
      requestRedraw(s);
    },
    selectionFlows: () => s.selectedFlows,
    setSelectedRange(range) {
      s.selectedRange = range;
      requestRedraw(s);
    },
    setSearchMatches(ops, currentOp) {
      s.search =
        ops === undefined || s.trace === undefined ? undefined : new SearchMarks(s.trace, ops);
      s.currentMatch = currentOp;
      requestRedraw(s);
    },
    setSearchBuckets(marks) {
      s.searchBuckets = marks;
      requestRedraw(s);
    },
    setHighlightedOps(ops) {
      s.highlight =
        ops === undefined || ops.length === 0 || s.trace === undefined
          ? undefined
          : new SearchMarks(s.trace, ops);
      requestRedraw(s);
    },
    setCurrentMatch(op) {
      s.currentMatch = op;
      requestRedraw(s);
    },
    setAreaSelection(next) {
      s.area = next;
      requestRedraw(s);
    },
    setCursor(timeNs) {
      if (timeNs !== s.cursorNs) {
        s.cursorNs = timeNs;
        requestRedraw(s);
      }
    },
    setMark(next) {
      s.mark = next;
      requestRedraw(s);
    },
    setGaps(gaps) {
      s.gapIndex = gaps === undefined ? undefined : new GapIndex(gaps);
      s.selectedGap = undefined;
      requestRedraw(s);
    },
  };
}
