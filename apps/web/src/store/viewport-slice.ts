import type { StateCreator } from 'zustand/vanilla';
import type { AppState } from './index.ts';

/** 'gpu': first to last GPU op (Fit); 'all': the whole trace, host time included (Fit all). */
export type FitMode = 'gpu' | 'all';

export interface ViewportSlice {
  /** Visible window in ns since the trace origin. endNs <= startNs means "not set yet: fit". */
  readonly viewStartNs: number;
  readonly viewEndNs: number;
  /** Bumped to ask the canvas to fit (it knows the span as data grows). */
  readonly fitRequest: number;
  /** What the last fit request shows: the GPU's activity, or the whole trace. */
  readonly fitMode: FitMode;
  setViewport: (startNs: number, endNs: number) => void;
  requestFit: (mode?: FitMode) => void;
}

/** Narrowest window the viewer zooms to: 10 ns across the canvas. */
export const minViewSpanNs = 10;

export const createViewportSlice: StateCreator<AppState, [], [], ViewportSlice> = (set, get) => ({
  viewStartNs: 0,
  viewEndNs: 0,
  fitRequest: 0,
  fitMode: 'gpu',
  setViewport: (startNs, endNs) => {
    const state = get();
    if (state.viewStartNs === startNs && state.viewEndNs === endNs) {
      return;
    }
    // What was under the pointer moved with the view (a search jump, a zoom by key, a link): a
    // tooltip of it would describe something no longer there. The next pointer move hovers again.
    const hovering =
      state.hoveredOp !== null || state.hoveredGap !== null || state.hoveredRange !== null;
    set({
      viewStartNs: startNs,
      viewEndNs: endNs,
      ...(hovering ? { hoveredOp: null, hoveredGap: null, hoveredRange: null } : {}),
    });
  },
  requestFit: (mode = 'gpu') =>
    set((state) => ({ fitRequest: state.fitRequest + 1, fitMode: mode })),
});
