import { appStore } from '../store/index.ts';
import type { ServerOp } from './tile-api.ts';
import { getServerOpAt } from './tile-queries.ts';
import { opAt, whenWindowHolds } from './tiled-loader.ts';
import { showTarget } from './show-window.ts';

/** Ops of a finding looked up on the server at most (the first ones it names). */
const maxOpsLooked = 64;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Tiled mode's "show" of a finding: its ops are indices of the whole trace, which the page does
 * not hold. Reads where the first of them are from the server, moves the view by the normal
 * view's rule (`showWindow`: all of them when the first is readable so, else the first), and
 * selects those the view shows (as one set, in start order) once the window of exact ops there
 * has arrived.
 */
export async function showTiledOps(
  traceId: string,
  opIndices: readonly number[],
  source: string | null,
): Promise<void> {
  let rows: ServerOp[];
  try {
    rows = await Promise.all(
      opIndices.slice(0, maxOpsLooked).map((i) => getServerOpAt(traceId, i)),
    );
  } catch (error) {
    appStore.getState().notify('error', `the finding's ops: ${messageOf(error)}`);
    return;
  }
  if (rows.length === 0) {
    return;
  }
  rows.sort((a, b) => a.startNs - b.startNs || a.op - b.op);
  const first = rows[0]!;
  const view = showTarget({
    fromNs: first.startNs,
    toNs: Math.max(...rows.map((r) => r.endNs)),
    currentStartNs: first.startNs,
    currentEndNs: first.endNs,
  });
  // The shown ops: those that reach into the view (all of them unless only the first is shown).
  const shown = rows.filter((r) => r.endNs >= view.startNs && r.startNs <= view.endNs);
  const startNs = shown[0]!.startNs;
  const endNs = Math.max(...shown.map((r) => r.endNs));
  whenWindowHolds(traceId, startNs, endNs, (trace) => {
    const ops: number[] = [];
    for (const row of shown) {
      const op = opAt(trace, row.track, row.startNs);
      if (op !== undefined && !ops.includes(op)) {
        ops.push(op);
      }
    }
    const state = appStore.getState();
    if (ops.length === 1) {
      state.selectOp(ops[0]!);
    } else if (ops.length > 1) {
      state.selectOpSet(ops, 0, source);
    }
  });
}
