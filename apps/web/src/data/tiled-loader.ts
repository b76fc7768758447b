import type { Trace } from '@streamscope/trace';
import { appStore } from '../store/index.ts';
import { getTileMeta, getTileSkeleton, tileFetcher } from './tile-api.ts';
import { TiledTrace, rangeLanesOf } from '@streamscope/timeline';
import { getServerRangeLanes } from './tile-queries.ts';
import { getTrace, registerTrace } from './trace-registry.ts';

/** Stored traces above this many ops open in tiled mode (the browser holds a window, not the trace). */
export const tiledOpThreshold = 2_000_000;

/** What tiled mode does not offer yet, said in the UI instead of showing numbers of a window. */
export const tiledModeNote =
  'Tiled mode (a big trace): zoomed out, streams show merged buckets; exact ops, details, NVTX ' +
  'ranges and gaps load for a window once zoomed in. Search, area aggregates, flows and the ' +
  'analysis cover the whole trace through the server.';

const tiled = new Map<string, TiledTrace>();
const redrawers = new Map<string, Set<() => void>>();
/** A search match to select once the window that holds it has arrived. */
let pendingSelect: { traceId: string; track: number; startNs: number } | undefined;
/** What to do once a window of exact ops holds [startNs, endNs] (a finding's ops). */
let pendingWindow:
  { traceId: string; startNs: number; endNs: number; apply: (trace: Trace) => void } | undefined;

export function getTiled(traceId: string | null): TiledTrace | undefined {
  return traceId === null ? undefined : tiled.get(traceId);
}

/** `?tiles=1` in the page's query (or its hash route) opens every stored trace tiled (tests). */
export function tilesForced(): boolean {
  const location = globalThis.location as Location | undefined;
  if (location === undefined) {
    return false;
  }
  const hashQuery = location.hash.split('?', 2)[1] ?? '';
  return (
    new URLSearchParams(location.search).get('tiles') === '1' ||
    new URLSearchParams(hashQuery).get('tiles') === '1'
  );
}

export function wantsTiles(opCount: number): boolean {
  return opCount > tiledOpThreshold || tilesForced();
}

/** Calls `redraw` when tiles of the trace arrive; returns the function that stops it. */
export function watchTiles(traceId: string, redraw: () => void): () => void {
  let set = redrawers.get(traceId);
  if (set === undefined) {
    set = new Set();
    redrawers.set(traceId, set);
  }
  set.add(redraw);
  return () => set.delete(redraw);
}

/**
 * Opens a stored trace in tiled mode: the pyramid's shape, then a skeleton trace (every track
 * and string, the ops at time 0) in the registry; tiles and windows of exact ops follow as the
 * view asks for them. Any other tiled trace is let go (its tiles' memory with it).
 */
export async function openTiled(traceId: string): Promise<void> {
  const meta = await getTileMeta(traceId);
  const skeleton = await getTileSkeleton(traceId);
  for (const [id, other] of tiled) {
    other.dispose();
    tiled.delete(id);
  }
  const source = new TiledTrace(meta, tileFetcher(traceId), {
    onTiles: () => redrawers.get(traceId)?.forEach((redraw) => redraw()),
    onWindow: (trace) => {
      registerTrace(traceId, trace);
      appStore.getState().bumpDataVersion();
      selectPending(traceId, trace);
      runPendingWindow(traceId, trace);
    },
    onError: (message) => appStore.getState().notify('error', message),
  });
  tiled.set(traceId, source);
  registerTrace(traceId, skeleton);
  // Range rows are labelled and sized from the whole trace's ranges, as in the normal view: the
  // page holds a window of them. Asked apart so the first paint does not wait for it.
  const trackCount = skeleton.tracks.length;
  void getServerRangeLanes(traceId).then(
    (summaries) =>
      source.setRangeLanes(rangeLanesOf(trackCount, summaries, skeleton.meta.sourceFormat)),
    (error: unknown) =>
      appStore
        .getState()
        .notify(
          'error',
          `the trace's range rows: ${error instanceof Error ? error.message : String(error)}`,
        ),
  );
}

/**
 * Selects the op of the trace's window that starts at `startNs` on `track` (a search match of
 * the whole trace): now if the window on screen holds it, else when the next window arrives.
 */
export function selectWhenLoaded(traceId: string, track: number, startNs: number): void {
  pendingSelect = { traceId, track, startNs };
  const trace = getTrace(traceId);
  const exact = getTiled(traceId)?.exactRange();
  if (
    trace !== undefined &&
    exact !== undefined &&
    exact.startNs <= startNs &&
    startNs <= exact.endNs
  ) {
    selectPending(traceId, trace);
  }
}

/**
 * Calls `apply` with the window's trace once the exact ops on screen cover [startNs, endNs]: now
 * if they do, else when such a window arrives (a later call replaces an earlier one).
 */
export function whenWindowHolds(
  traceId: string,
  startNs: number,
  endNs: number,
  apply: (trace: Trace) => void,
): void {
  pendingWindow = { traceId, startNs, endNs, apply };
  const trace = getTrace(traceId);
  if (trace !== undefined) {
    runPendingWindow(traceId, trace);
  }
}

function runPendingWindow(traceId: string, trace: Trace): void {
  const want = pendingWindow;
  const exact = getTiled(traceId)?.exactRange();
  if (
    want?.traceId === traceId &&
    exact !== undefined &&
    exact.startNs <= want.startNs &&
    want.endNs <= exact.endNs
  ) {
    pendingWindow = undefined;
    want.apply(trace);
  }
}

function selectPending(traceId: string, trace: Trace): void {
  const want = pendingSelect;
  if (want?.traceId !== traceId) {
    return;
  }
  const op = opAt(trace, want.track, want.startNs);
  if (op !== undefined) {
    pendingSelect = undefined;
    appStore.getState().selectOp(op);
  }
}

/** The op of `trace` on `track` that starts at `startNs`, if it holds one. */
export function opAt(trace: Trace, track: number, startNs: number): number | undefined {
  if (track >= trace.tracks.length) {
    return undefined;
  }
  const starts = trace.ops.columns().startNs;
  for (const op of trace.ops.trackOpsInWindow(track, startNs, startNs)) {
    if (starts[op] === startNs) {
      return op;
    }
  }
  return undefined;
}
