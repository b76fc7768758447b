import type { StateCreator } from 'zustand/vanilla';
import type { AppState } from './index.ts';

export interface FilterSlice {
  readonly searchQuery: string;
  /** Matches sit in data/search-registry.ts; the store only knows how many and which is current. */
  readonly searchMatchCount: number;
  readonly searchMatchIndex: number;
  readonly pinnedTracks: readonly number[];
  readonly hiddenTracks: readonly number[];
  setSearchResult: (query: string, matchCount: number) => void;
  stepSearch: (delta: 1 | -1) => void;
  togglePinnedTrack: (track: number) => void;
  toggleHiddenTrack: (track: number) => void;
}

function toggle(list: readonly number[], value: number): readonly number[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

export const createFilterSlice: StateCreator<AppState, [], [], FilterSlice> = (set) => ({
  searchQuery: '',
  searchMatchCount: 0,
  searchMatchIndex: -1,
  pinnedTracks: [],
  hiddenTracks: [],
  setSearchResult: (query, matchCount) =>
    set({
      searchQuery: query,
      searchMatchCount: matchCount,
      searchMatchIndex: matchCount > 0 ? 0 : -1,
    }),
  stepSearch: (delta) =>
    set((state) => {
      if (state.searchMatchCount === 0) {
        return {};
      }
      const n = state.searchMatchCount;
      return { searchMatchIndex: (((state.searchMatchIndex + delta) % n) + n) % n };
    }),
  togglePinnedTrack: (track) =>
    set((state) => ({ pinnedTracks: toggle(state.pinnedTracks, track) })),
  toggleHiddenTrack: (track) =>
    set((state) => ({ hiddenTracks: toggle(state.hiddenTracks, track) })),
});
