import { windowAround } from '../lib/zoom-math.ts';
import { appStore } from '../store/index.ts';
import type { ServerOp } from './tile-api.ts';
import { getServerOpAt } from './tile-queries.ts';
import { opAt, whenWindowHolds } from './tiled-loader.ts';

/** Ops of a finding looked up on the server at most (the first ones it names). */
const maxOpsLooked = 64;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Tiled mode's "show" of a finding: its ops are indices of the whole trace, which the page does
 * not hold. Reads where the first of them are from the server, zooms to their range, and selects
 * them (as one set, in start order) once the window of exact ops there has arrived.
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
  const startNs = rows[0]!.startNs;
  const endNs = Math.max(...rows.map((r) => r.endNs));
  const view = windowAround(startNs, endNs);
  appStore.getState().setViewport(view.startNs, view.endNs);
  whenWindowHolds(traceId, startNs, endNs, (trace) => {
    const ops: number[] = [];
    for (const row of rows) {
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
