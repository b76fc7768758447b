import type { FlowKind, Trace } from '@streamscope/trace';
import { appStore } from '../store/index.ts';
import type { ServerFlowOp } from './tile-queries.ts';
import { getServerFlows } from './tile-queries.ts';
import { getTiled } from './tiled-loader.ts';
import { getTrace } from './trace-registry.ts';

/** Ops of each window whose flows were asked for (a window holds none of the trace's flows). */
const asked = new WeakMap<Trace, Set<number>>();

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The op of `trace` that is `want` (same track, start, kind and name), or -1. */
function findOp(trace: Trace, want: ServerFlowOp): number {
  if (want.track >= trace.tracks.length) {
    return -1;
  }
  const ops = trace.ops.columns();
  for (const i of trace.ops.trackOpsInWindow(want.track, want.startNs, want.startNs)) {
    if (
      ops.startNs[i] === want.startNs &&
      ops.kind[i] === want.kind &&
      ops.nameId[i] === want.nameId
    ) {
      return i;
    }
  }
  return -1;
}

/**
 * Tiled mode: asks the server for the flows of `op` of the window on screen (API call ↔ GPU op,
 * event record → wait) and adds them to the window, with any other end the window lacks (it is
 * drawn as an arrow's end, outside the window's exact ops), so the view draws them as the normal
 * view does. Once per op per window.
 */
export async function loadTiledFlows(traceId: string, op: number): Promise<void> {
  const trace = getTrace(traceId);
  if (trace === undefined || getTiled(traceId) === undefined || op < 0 || op >= trace.ops.count) {
    return;
  }
  let done = asked.get(trace);
  if (done === undefined) {
    done = new Set();
    asked.set(trace, done);
  }
  if (done.has(op)) {
    return;
  }
  done.add(op);
  const ops = trace.ops.columns();
  let flows;
  try {
    flows = await getServerFlows(traceId, ops.track[op]!, ops.startNs[op]!);
  } catch (error) {
    done.delete(op);
    appStore.getState().notify('error', `flows of the selected op: ${messageOf(error)}`);
    return;
  }
  if (getTrace(traceId) !== trace || flows.length === 0) {
    // Another window arrived meanwhile (its ops are numbered afresh), or there are none.
    return;
  }
  const endOf = (end: ServerFlowOp): number => {
    const found = findOp(trace, end);
    return found >= 0 ? found : trace.addOp(end);
  };
  for (const flow of flows) {
    const from = endOf(flow.from);
    const to = endOf(flow.to);
    if (!trace.flows.touching(from).some((f) => trace.flows.columns().toOp[f] === to)) {
      trace.flows.append(from, to, flow.kind as FlowKind);
    }
  }
  appStore.getState().bumpDataVersion();
}
