import type { StateCreator } from 'zustand/vanilla';
import type { AppState } from './index.ts';

export type RunStatus = 'queued' | 'running' | 'finished' | 'failed' | 'cancelled';

export interface ActiveRun {
  readonly runId: string;
  readonly status: RunStatus;
  /** Place in the queue while queued (0 = next). */
  readonly position: number | null;
  /** Why it failed or was cancelled, as the server said it. */
  readonly reason: string | null;
  readonly opsReceived: number;
}

export interface RunSlice {
  readonly activeRun: ActiveRun | null;
  startRun: (runId: string, status: RunStatus, position: number | null) => void;
  updateRun: (runId: string, patch: Partial<Omit<ActiveRun, 'runId'>>) => void;
  clearRun: () => void;
}

export const createRunSlice: StateCreator<AppState, [], [], RunSlice> = (set, get) => ({
  activeRun: null,
  startRun: (runId, status, position) =>
    set({ activeRun: { runId, status, position, reason: null, opsReceived: 0 } }),
  updateRun: (runId, patch) => {
    const run = get().activeRun;
    if (run === null || run.runId !== runId) {
      return;
    }
    set({ activeRun: { ...run, ...patch } });
  },
  clearRun: () => set({ activeRun: null }),
});
