import type { StateCreator } from 'zustand/vanilla';
import type { AppState } from './index.ts';

export type RunSetupMode = 'preset' | 'workload';

/** The backend and device a workload opened in the editor was made for (a lesson's profile). */
export interface SuggestedTarget {
  readonly backend: string;
  readonly target: string;
}

/**
 * The Run page's workload editor: its text lives in the store so a preset or a lesson can put a
 * workload there from anywhere and the page shows it, edits and all, after navigating away.
 */
export interface EditorSlice {
  readonly runMode: RunSetupMode;
  readonly workloadText: string;
  /** Where the text came from ("preset overlap-blog (variant=depth-first)"), null when typed. */
  readonly workloadOrigin: string | null;
  readonly suggestedTarget: SuggestedTarget | null;
  setRunMode: (mode: RunSetupMode) => void;
  setWorkloadText: (text: string) => void;
  clearSuggestedTarget: () => void;
  /** Replaces the editor's text with `workload` as indented JSON and shows the editor. */
  loadWorkloadIntoEditor: (
    workload: unknown,
    origin: string,
    suggestedTarget?: SuggestedTarget,
  ) => void;
}

export const createEditorSlice: StateCreator<AppState, [], [], EditorSlice> = (set) => ({
  runMode: 'preset',
  workloadText: '',
  workloadOrigin: null,
  suggestedTarget: null,
  setRunMode: (mode) => set({ runMode: mode }),
  setWorkloadText: (text) => set({ workloadText: text }),
  clearSuggestedTarget: () => set({ suggestedTarget: null }),
  loadWorkloadIntoEditor: (workload, origin, suggestedTarget) =>
    set({
      runMode: 'workload',
      workloadText: `${JSON.stringify(workload, null, 2)}\n`,
      workloadOrigin: origin,
      suggestedTarget: suggestedTarget ?? null,
    }),
});
