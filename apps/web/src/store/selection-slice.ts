import type { StateCreator } from 'zustand/vanilla';
import type { AppState } from './index.ts';

export interface HoveredOp {
  readonly op: number;
  /** Pointer position in client pixels when the hovered op changed (tooltip anchor). */
  readonly clientX: number;
  readonly clientY: number;
}

/** A time range (ns since origin) plus the tracks it covers. */
export interface AreaSelection {
  readonly startNs: number;
  readonly endNs: number;
  readonly tracks: readonly number[];
}

/** A range marked with `M` (ns since origin): drawn with its duration until cleared. */
export interface MarkedRange {
  readonly startNs: number;
  readonly endNs: number;
}

/** An NVTX / CPU-op / annotation range under the pointer. */
export interface HoveredRange {
  readonly range: number;
  readonly clientX: number;
  readonly clientY: number;
}

/** A shaded sync gap under the pointer: an index into the analysis' drawn gaps (gap-table.ts). */
export interface HoveredGap {
  readonly gap: number;
  readonly clientX: number;
  readonly clientY: number;
}

export interface SelectionSlice {
  readonly selectedOp: number | null;
  readonly hoveredOp: HoveredOp | null;
  /** A selected range (NVTX, CPU op, annotation); selecting an op clears it and back. */
  readonly selectedRange: number | null;
  readonly hoveredRange: HoveredRange | null;
  /** A selected gap (index into the drawn gaps); selecting an op or a range clears it. */
  readonly selectedGap: number | null;
  readonly hoveredGap: HoveredGap | null;
  readonly area: AreaSelection | null;
  readonly mark: MarkedRange | null;
  selectOp: (op: number | null) => void;
  hoverOp: (hovered: HoveredOp | null) => void;
  selectRange: (range: number | null) => void;
  hoverRange: (hovered: HoveredRange | null) => void;
  selectGap: (gap: number | null) => void;
  hoverGap: (hovered: HoveredGap | null) => void;
  selectArea: (area: AreaSelection | null) => void;
  setMark: (mark: MarkedRange | null) => void;
}

export const createSelectionSlice: StateCreator<AppState, [], [], SelectionSlice> = (set, get) => ({
  selectedOp: null,
  hoveredOp: null,
  selectedRange: null,
  hoveredRange: null,
  selectedGap: null,
  hoveredGap: null,
  area: null,
  mark: null,
  selectOp: (op) =>
    set(
      op === null
        ? { selectedOp: null }
        : { selectedOp: op, selectedRange: null, selectedGap: null },
    ),
  selectRange: (range) =>
    set(
      range === null
        ? { selectedRange: null }
        : { selectedRange: range, selectedOp: null, selectedGap: null },
    ),
  selectGap: (gap) =>
    set(
      gap === null
        ? { selectedGap: null }
        : { selectedGap: gap, selectedOp: null, selectedRange: null },
    ),
  hoverGap: (hovered) => {
    if (get().hoveredGap?.gap === hovered?.gap) {
      return;
    }
    set({ hoveredGap: hovered });
  },
  hoverRange: (hovered) => {
    if (get().hoveredRange?.range === hovered?.range) {
      return;
    }
    set({ hoveredRange: hovered });
  },
  hoverOp: (hovered) => {
    // Only a change of op re-renders the tooltip; pointer moves over the same op do not.
    if (get().hoveredOp?.op === hovered?.op) {
      return;
    }
    set({ hoveredOp: hovered });
  },
  selectArea: (area) => set({ area }),
  setMark: (mark) => set({ mark }),
});
