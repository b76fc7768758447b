import type { StateCreator } from 'zustand/vanilla';
import type { AppState } from './index.ts';

export interface ViewportSlice {
  /** Visible window in ns since the trace origin. endNs <= startNs means "not set yet: fit". */
  readonly viewStartNs: number;
  readonly viewEndNs: number;
  /** Bumped to ask the canvas to fit the whole trace (it knows the span as data grows). */
  readonly fitRequest: number;
  setViewport: (startNs: number, endNs: number) => void;
  requestFit: () => void;
}

/** Narrowest window the viewer zooms to: 10 ns across the canvas. */
export const minViewSpanNs = 10;

export const createViewportSlice: StateCreator<AppState, [], [], ViewportSlice> = (set, get) => ({
  viewStartNs: 0,
  viewEndNs: 0,
  fitRequest: 0,
  setViewport: (startNs, endNs) => {
    const state = get();
    if (state.viewStartNs === startNs && state.viewEndNs === endNs) {
      return;
    }
    set({ viewStartNs: startNs, viewEndNs: endNs });
  },
  requestFit: () => set((state) => ({ fitRequest: state.fitRequest + 1 })),
});
