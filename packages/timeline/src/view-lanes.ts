import type { TimelineView } from './timeline-view-api.ts';
import type { ViewState } from './view-state.ts';
import { relayout, requestRedraw } from './view-state.ts';

type LaneMethods = Pick<
  TimelineView,
  | 'setPinnedTracks'
  | 'setHiddenTracks'
  | 'setCollapsedGroups'
  | 'setTrackLaneData'
  | 'setTrackLanesShown'
>;

/** Which rows the view lays out: pinned, hidden and folded tracks, launch and queue lanes. */
export function laneMethods(s: ViewState): LaneMethods {
  const changed = (): void => {
    relayout(s);
    requestRedraw(s);
  };
  return {
    setPinnedTracks(tracks) {
      s.pinned = [...tracks];
      changed();
    },
    setHiddenTracks(tracks) {
      s.hidden = new Set(tracks);
      changed();
    },
    setCollapsedGroups(keys) {
      s.collapsedGroups = new Set(keys);
      changed();
    },
    setTrackLaneData(launch, queue, queueCapacity) {
      s.trackLanes.setLaunchSegments(launch);
      s.trackLanes.setQueueDepth(queue, queueCapacity);
      changed();
    },
    setTrackLanesShown(launch, queue) {
      s.trackLanes.setShown(launch, queue);
      changed();
    },
  };
}
