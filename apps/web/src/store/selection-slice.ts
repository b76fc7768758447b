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
  /**
   * Ops selected together (ctrl/cmd-click, or a finding's "show"), in start order; empty when
   * the selection is one op or none. `selectedOp` is then the set's current op.
   */
  readonly opSet: readonly number[];
  /** Index in `opSet` of the current op (next/previous step from it), -1 without a set. */
  readonly opSetIndex: number;
  /** What the set came from ("finding: …"), or null for a set picked by hand. */
  readonly opSetSource: string | null;
  /** A plain select (or null): also ends any set. */
  selectOp: (op: number | null) => void;
  /** Selects `ops` (already in start order) as a set, `index` current; fewer than 2 is one op. */
  selectOpSet: (ops: readonly number[], index: number, source: string | null) => void;
  /** Makes member `index` of the set current (wrapping), which selects that op. */
  setOpSetIndex: (index: number) => void;
  hoverOp: (hovered: HoveredOp | null) => void;
  selectRange: (range: number | null) => void;
  hoverRange: (hovered: HoveredRange | null) => void;
  selectGap: (gap: number | null) => void;
  hoverGap: (hovered: HoveredGap | null) => void;
  selectArea: (area: AreaSelection | null) => void;
  setMark: (mark: MarkedRange | null) => void;
}

const noSet = { opSet: [], opSetIndex: -1, opSetSource: null } as const;

export const createSelectionSlice: StateCreator<AppState, [], [], SelectionSlice> = (set, get) => ({
  selectedOp: null,
  hoveredOp: null,
  selectedRange: null,
  hoveredRange: null,
  selectedGap: null,
  hoveredGap: null,
  area: null,
  mark: null,
  opSet: [],
  opSetIndex: -1,
  opSetSource: null,
  selectOp: (op) =>
    set(
      op === null
        ? { selectedOp: null, ...noSet }
        : { selectedOp: op, selectedRange: null, selectedGap: null, ...noSet },
    ),
  selectOpSet: (ops, index, source) => {
    if (ops.length < 2) {
      get().selectOp(ops[0] ?? null);
      return;
    }
    const at = Math.min(ops.length - 1, Math.max(0, index));
    set({
      opSet: ops,
      opSetIndex: at,
      opSetSource: source,
      selectedOp: ops[at]!,
      selectedRange: null,
      selectedGap: null,
    });
  },
  setOpSetIndex: (index) => {
    const n = get().opSet.length;
    if (n === 0) {
      return;
    }
    const at = ((index % n) + n) % n;
    set({ opSetIndex: at, selectedOp: get().opSet[at]! });
  },
  selectRange: (range) =>
    set(
      range === null
        ? { selectedRange: null }
        : { selectedRange: range, selectedOp: null, selectedGap: null, ...noSet },
    ),
  selectGap: (gap) =>
    set(
      gap === null
        ? { selectedGap: null }
        : { selectedGap: gap, selectedOp: null, selectedRange: null, ...noSet },
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
