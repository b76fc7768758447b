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

export interface UiSlice {
  readonly route: Route;
  readonly notices: readonly Notice[];
  /** The keyboard and mouse help over the trace view (`?`). */
  readonly helpOpen: boolean;
  readonly hoveredLabel: HoveredLabel | null;
  navigate: (route: Route) => void;
  notify: (tone: Notice['tone'], text: string) => void;
  dismissNotice: (id: number) => void;
  setHelpOpen: (open: boolean) => void;
  hoverLabel: (hovered: HoveredLabel | null) => void;
}

let nextNoticeId = 1;

export const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set, get) => ({
  route: { page: 'traces' },
  notices: [],
  helpOpen: false,
  hoveredLabel: null,
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
});
