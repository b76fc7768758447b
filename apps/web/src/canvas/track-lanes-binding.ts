import {
  defaultAnalysisOptions,
  launchRangesByStream,
  queueDepthSeriesByStream,
} from '@streamscope/analysis';
import type { Trace } from '@streamscope/trace';
import type { TimelineView } from '@streamscope/timeline';
import { getTrace } from '../data/trace-registry.ts';
import { appStore } from '../store/index.ts';
import type { AppState } from '../store/index.ts';

/**
 * Feeds the view's optional rows under each stream from the store's Tracks menu: the host ranges
 * that launched its ops and its launch queue depth, computed from the trace when first shown and
 * again when it grows. Returns the function that disconnects it.
 */
export function bindTrackLanes(view: TimelineView, traceId: string): () => void {
  let computedFor: Trace | undefined;
  let computedVersion = -1;
  const apply = (state: AppState): void => {
    const launch = state.trackLanes.includes('launch');
    const queue = state.trackLanes.includes('queue');
    const trace = getTrace(traceId);
    if (
      (launch || queue) &&
      trace !== undefined &&
      (trace !== computedFor || state.dataVersion !== computedVersion)
    ) {
      computedFor = trace;
      computedVersion = state.dataVersion;
      view.setTrackLaneData(
        launchRangesByStream(trace),
        queueDepthSeriesByStream(trace),
        defaultAnalysisOptions.launchQueueCapacity,
      );
    }
    view.setTrackLanesShown(launch, queue);
  };
  apply(appStore.getState());
  return appStore.subscribe((state, previous) => {
    if (state.trackLanes !== previous.trackLanes || state.dataVersion !== previous.dataVersion) {
      apply(state);
    }
  });
}
