import { opKindName } from '@streamscope/trace';
import { getView } from '../canvas/view-registry.ts';
import { getTrace } from '../data/trace-registry.ts';
import { appStore } from '../store/index.ts';

/** An op of the open trace as e2e tests see it: its times, name and centre on the canvas. */
export interface OpProbe {
  readonly op: number;
  readonly name: string;
  /** opKindName: 'kernel', 'copy-htod', … */
  readonly kind: string;
  readonly track: number;
  readonly startNs: number;
  readonly endNs: number;
  /** Centre of the op in its stream's row, CSS px from the canvas' top left (may be off screen). */
  readonly xPx: number;
  readonly yPx: number;
}

/** Ops `ops` of the trace the view `viewId` draws; unknown ops are left out. */
export function probeOps(viewId: string, ops: readonly number[]): OpProbe[] {
  const view = getView(viewId);
  const trace = getTrace(appStore.getState().traceId);
  if (view === undefined || trace === undefined) {
    return [];
  }
  const columns = trace.ops.columns();
  const layout = view.getLayout();
  const out: OpProbe[] = [];
  for (const op of ops) {
    if (!(op >= 0 && op < columns.count)) {
      continue;
    }
    const track = columns.track[op]!;
    const row = layout.rows[layout.rowOfTrack[track] ?? -1];
    out.push({
      op,
      name: trace.strings.get(columns.nameId[op]!),
      kind: opKindName(columns.kind[op]!),
      track,
      startNs: columns.startNs[op]!,
      endNs: columns.endNs[op]!,
      xPx: view.xAtTime((columns.startNs[op]! + columns.endNs[op]!) / 2),
      yPx: row === undefined ? Number.NaN : view.rowTopPx(row) + row.heightPx / 2,
    });
  }
  return out;
}

/** The selection and the trace's span, as the store holds them. */
export function selectionProbe(): {
  selectedOp: number | null;
  opSet: readonly number[];
  opSetIndex: number;
  traceSpanNs: number;
} {
  const state = appStore.getState();
  return {
    selectedOp: state.selectedOp,
    opSet: state.opSet,
    opSetIndex: state.opSetIndex,
    traceSpanNs: getTrace(state.traceId)?.spanNs() ?? 0,
  };
}
