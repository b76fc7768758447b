import type { StateCreator } from 'zustand/vanilla';
import type { AppState } from './index.ts';
import type { Route } from './route.ts';

export interface Notice {
  readonly id: number;
  readonly tone: 'info' | 'error';
  readonly text: string;
}

export interface UiSlice {
  readonly route: Route;
  readonly notices: readonly Notice[];
  /** The keyboard and mouse help over the trace view (`?`). */
  readonly helpOpen: boolean;
  navigate: (route: Route) => void;
  notify: (tone: Notice['tone'], text: string) => void;
  dismissNotice: (id: number) => void;
  setHelpOpen: (open: boolean) => void;
}

let nextNoticeId = 1;

export const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set) => ({
  route: { page: 'traces' },
  notices: [],
  helpOpen: false,
  navigate: (route) => set({ route }),
  notify: (tone, text) =>
    set((state) => ({ notices: [...state.notices.slice(-4), { id: nextNoticeId++, tone, text }] })),
  dismissNotice: (id) => set((state) => ({ notices: state.notices.filter((n) => n.id !== id) })),
  setHelpOpen: (open) => set({ helpOpen: open }),
});
