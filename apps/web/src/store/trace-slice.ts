import type { StateCreator } from 'zustand/vanilla';
import type { TraceEntry } from '../api/types.ts';
import type { AppState } from './index.ts';

/** loading: fetching bytes; live: a run that still grows; ready: complete; error: see traceError. */
export type TraceStatus = 'idle' | 'loading' | 'live' | 'ready' | 'error';

export interface TraceSlice {
  /** The trace on screen; its tables sit in data/trace-registry.ts, never in the store. */
  readonly traceId: string | null;
  readonly traceStatus: TraceStatus;
  readonly traceError: string | null;
  /** Bumped whenever the registered trace's tables change (a live batch arrived). */
  readonly dataVersion: number;
  readonly traceList: readonly TraceEntry[];
  readonly traceListError: string | null;
  openTrace: (traceId: string) => void;
  markTraceLoaded: (traceId: string, status: 'live' | 'ready') => void;
  markTraceFailed: (traceId: string, message: string) => void;
  bumpDataVersion: () => void;
  closeTrace: () => void;
  setTraceList: (entries: readonly TraceEntry[]) => void;
  setTraceListError: (message: string | null) => void;
}

export const createTraceSlice: StateCreator<AppState, [], [], TraceSlice> = (set, get) => ({
  traceId: null,
  traceStatus: 'idle',
  traceError: null,
  dataVersion: 0,
  traceList: [],
  traceListError: null,
  openTrace: (traceId) =>
    set({
      traceId,
      traceStatus: 'loading',
      traceError: null,
      viewStartNs: 0,
      viewEndNs: 0,
      selectedOp: null,
      hoveredOp: null,
      selectedRange: null,
      hoveredRange: null,
      selectedGap: null,
      hoveredGap: null,
      area: null,
      mark: null,
      searchQuery: '',
      searchMatchCount: 0,
      searchMatchIndex: -1,
      pinnedTracks: [],
      hiddenTracks: [],
      collapsedGroups: [],
    }),
  markTraceLoaded: (traceId, status) => {
    if (get().traceId === traceId) {
      set((state) => ({ traceStatus: status, dataVersion: state.dataVersion + 1 }));
    }
  },
  markTraceFailed: (traceId, message) => {
    if (get().traceId === traceId) {
      set({ traceStatus: 'error', traceError: message });
    }
  },
  bumpDataVersion: () => set((state) => ({ dataVersion: state.dataVersion + 1 })),
  closeTrace: () => set({ traceId: null, traceStatus: 'idle', traceError: null }),
  setTraceList: (entries) => set({ traceList: entries, traceListError: null }),
  setTraceListError: (message) => set({ traceListError: message }),
});
