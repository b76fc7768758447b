import type { StateCreator } from 'zustand/vanilla';
import type { AppState } from './index.ts';
import type { Route } from './route.ts';

export interface Notice {
  readonly id: number;
  readonly tone: 'info' | 'error';
  readonly text: string;
}

/** A row label the gutter cut short, under the pointer: its whole text for a tooltip. */
export interface HoveredLabel {
  readonly text: string;
  readonly clientX: number;
  readonly clientY: number;
}

/** The optional rows under each stream (the toolbar's Tracks menu; `lanes=` in the URL). */
export type TrackLaneName = 'launch' | 'queue';

/** What a 'queue' or 'launch' row shows under the pointer. */
export interface HoveredLane {
  readonly kind: 'queue' | 'launch';
  readonly track: number;
  /** Queue depth (queue rows) or range index (launch rows). */
  readonly value: number;
  readonly timeNs: number;
  readonly clientX: number;
  readonly clientY: number;
}

export interface UiSlice {
  readonly route: Route;
  readonly notices: readonly Notice[];
  /** The keyboard and mouse help over the trace view (`?`). */
  readonly helpOpen: boolean;
  readonly hoveredLabel: HoveredLabel | null;
  readonly trackLanes: readonly TrackLaneName[];
  readonly hoveredLane: HoveredLane | null;
  navigate: (route: Route) => void;
  notify: (tone: Notice['tone'], text: string) => void;
  dismissNotice: (id: number) => void;
  setHelpOpen: (open: boolean) => void;
  hoverLabel: (hovered: HoveredLabel | null) => void;
  toggleTrackLane: (lane: TrackLaneName) => void;
  setTrackLanes: (lanes: readonly TrackLaneName[]) => void;
  hoverLane: (hovered: HoveredLane | null) => void;
}

let nextNoticeId = 1;

export const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set, get) => ({
  route: { page: 'traces' },
  notices: [],
  helpOpen: false,
  hoveredLabel: null,
  trackLanes: [],
  hoveredLane: null,
  navigate: (route) => set({ route }),
  notify: (tone, text) =>
    set((state) => ({ notices: [...state.notices.slice(-4), { id: nextNoticeId++, tone, text }] })),
  dismissNotice: (id) => set((state) => ({ notices: state.notices.filter((n) => n.id !== id) })),
  setHelpOpen: (open) => set({ helpOpen: open }),
  hoverLabel: (hovered) => {
    // Only a change of label re-renders the tooltip; moves along the same label do not.
    if (get().hoveredLabel?.text === hovered?.text) {
      return;
    }
    set({ hoveredLabel: hovered });
  },
  toggleTrackLane: (lane) =>
    set((state) => ({
      trackLanes: state.trackLanes.includes(lane)
        ? state.trackLanes.filter((l) => l !== lane)
        : [...state.trackLanes, lane].sort(),
    })),
  setTrackLanes: (lanes) =>
    set((state) =>
      state.trackLanes.join() === [...lanes].sort().join() ? {} : { trackLanes: [...lanes].sort() },
    ),
  hoverLane: (hovered) => {
    const now = get().hoveredLane;
    if (
      now?.kind === hovered?.kind &&
      now?.track === hovered?.track &&
      now?.value === hovered?.value
    ) {
      return;
    }
    set({ hoveredLane: hovered });
  },
});
