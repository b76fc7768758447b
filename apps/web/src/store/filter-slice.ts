import type { StateCreator } from 'zustand/vanilla';
import type { AppState } from './index.ts';

export interface FilterSlice {
  readonly searchQuery: string;
  /** Matches sit in data/search-registry.ts; the store only knows how many and which is current. */
  readonly searchMatchCount: number;
  /** The current match (k-1 of "k of N"); -1 until next/previous (or Enter) visits one. */
  readonly searchMatchIndex: number;
  /** Whether the query is a regular expression. */
  readonly searchRegex: boolean;
  /** Why the query could not run (an invalid regular expression), or null. */
  readonly searchError: string | null;
  readonly pinnedTracks: readonly number[];
  readonly hiddenTracks: readonly number[];
  /** Row headers folded to one line (group keys of @streamscope/timeline's layout). */
  readonly collapsedGroups: readonly string[];
  setSearchResult: (
    query: string,
    matchCount: number,
    regex?: boolean,
    error?: string | null,
  ) => void;
  stepSearch: (delta: 1 | -1) => void;
  togglePinnedTrack: (track: number) => void;
  toggleHiddenTrack: (track: number) => void;
  toggleCollapsedGroup: (key: string) => void;
  /** Pinned, hidden and folded state at once (a link). */
  setTrackFilters: (filters: TrackFilters) => void;
}

export interface TrackFilters {
  readonly pinnedTracks: readonly number[];
  readonly hiddenTracks: readonly number[];
  readonly collapsedGroups: readonly string[];
}

function toggle<T>(list: readonly T[], value: T): readonly T[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

export const createFilterSlice: StateCreator<AppState, [], [], FilterSlice> = (set) => ({
  searchQuery: '',
  searchMatchCount: 0,
  searchMatchIndex: -1,
  searchRegex: false,
  searchError: null,
  pinnedTracks: [],
  hiddenTracks: [],
  collapsedGroups: [],
  setSearchResult: (query, matchCount, regex = false, error = null) =>
    set({
      searchQuery: query,
      searchMatchCount: matchCount,
      searchMatchIndex: -1,
      searchRegex: regex,
      searchError: error,
    }),
  stepSearch: (delta) =>
    set((state) => {
      if (state.searchMatchCount === 0) {
        return {};
      }
      const n = state.searchMatchCount;
      // From no current match, next goes to the first and previous to the last.
      const from = state.searchMatchIndex < 0 ? (delta > 0 ? -1 : 0) : state.searchMatchIndex;
      return { searchMatchIndex: (((from + delta) % n) + n) % n };
    }),
  togglePinnedTrack: (track) =>
    set((state) => ({ pinnedTracks: toggle(state.pinnedTracks, track) })),
  toggleHiddenTrack: (track) =>
    set((state) => ({ hiddenTracks: toggle(state.hiddenTracks, track) })),
  toggleCollapsedGroup: (key) =>
    set((state) => ({ collapsedGroups: toggle(state.collapsedGroups, key) })),
  setTrackFilters: (filters) =>
    set((state) => ({
      pinnedTracks: sameList(state.pinnedTracks, filters.pinnedTracks)
        ? state.pinnedTracks
        : filters.pinnedTracks,
      hiddenTracks: sameList(state.hiddenTracks, filters.hiddenTracks)
        ? state.hiddenTracks
        : filters.hiddenTracks,
      collapsedGroups: sameList(state.collapsedGroups, filters.collapsedGroups)
        ? state.collapsedGroups
        : filters.collapsedGroups,
    })),
});

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
