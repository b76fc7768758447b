import { TraceDecoder, loadTrace } from '@streamscope/trace';
import { getAnalysis, getTraceBytes, getTraceEntry, listTraces } from '../api/client.ts';
import { LiveSubscription } from '../api/live-client.ts';
import { isLocalTraceId } from '../local-import/local-trace-id.ts';
import { appStore } from '../store/index.ts';
import type { RunStatus } from '../store/run-slice.ts';
import { getTiled, openTiled, wantsTiles } from './tiled-loader.ts';
import {
  forgetTrace,
  getTrace,
  registerTrace,
  setAnalysis,
  setAnalysisFailure,
} from './trace-registry.ts';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Refreshes the trace list (runs, their queue and imports). */
export async function refreshTraceList(): Promise<void> {
  try {
    appStore.getState().setTraceList(await listTraces());
  } catch (error) {
    appStore.getState().setTraceListError(messageOf(error));
  }
}

/** Fetches a trace's analysis into the registry; a failure is kept there for the panel to say. */
export async function loadAnalysis(traceId: string): Promise<void> {
  try {
    setAnalysis(traceId, await getAnalysis(traceId));
    appStore.getState().bumpDataVersion();
  } catch (error) {
    setAnalysisFailure(traceId, messageOf(error));
    appStore.getState().bumpDataVersion();
    appStore.getState().notify('error', `analysis of ${traceId} failed: ${messageOf(error)}`);
  }
}

/** Downloads and decodes a stored trace unless the registry already holds it complete. */
export async function ensureTraceLoaded(traceId: string): Promise<void> {
  if (getTrace(traceId) !== undefined && !growingRuns.has(traceId)) {
    return;
  }
  const bytes = await getTraceBytes(traceId);
  registerTrace(traceId, loadTrace(bytes));
}

/** Opens a stored trace as the one on screen: bytes, then analysis in the background. */
export async function openStoredTrace(traceId: string): Promise<void> {
  const store = appStore.getState();
  if (store.traceId !== traceId) {
    store.openTrace(traceId);
  }
  if (isLocalTraceId(traceId)) {
    // Opened in this browser: the trace and its analysis are in the registry or nowhere.
    if (getTrace(traceId) === undefined) {
      store.markTraceFailed(
        traceId,
        'a trace opened locally lives only in the tab that opened it: open its file again',
      );
    } else {
      store.markTraceLoaded(traceId, 'ready');
    }
    return;
  }
  try {
    if (getTiled(traceId) !== undefined && getTrace(traceId) !== undefined) {
      appStore.getState().markTraceLoaded(traceId, 'ready');
      return;
    }
    if (getTrace(traceId) === undefined && wantsTiles((await getTraceEntry(traceId)).opCount)) {
      // Too big to hold: the view works from the server's tiles and windows (tiled-loader.ts).
      await openTiled(traceId);
      appStore.getState().markTraceLoaded(traceId, 'ready');
      // The server analyses the whole trace (its gaps are drawn inside windows of exact ops).
      await loadAnalysis(traceId);
      return;
    }
    await ensureTraceLoaded(traceId);
    appStore.getState().markTraceLoaded(traceId, 'ready');
    await loadAnalysis(traceId);
  } catch (error) {
    appStore.getState().markTraceFailed(traceId, messageOf(error));
  }
}

/**
 * Opens the trace a link names: a run still going (a profiled program the `profile` CLI printed
 * the link of, or any run) is followed live as the Run page follows its runs, so the view fills
 * in as it runs and becomes the stored trace when it ends; anything else opens stored.
 */
export async function openLinkedTrace(traceId: string): Promise<void> {
  if (!isLocalTraceId(traceId)) {
    let status: string | undefined;
    try {
      status = (await getTraceEntry(traceId)).status;
    } catch {
      // Unknown or unreachable: the stored path below says why, with its own error.
    }
    if (status === 'running' || status === 'queued') {
      if (appStore.getState().route.page === 'trace') {
        appStore.getState().startRun(traceId, status, null);
        followRun(traceId);
      }
      return;
    }
  }
  await openStoredTrace(traceId);
}

/** Open live subscriptions, closed by stopFollowing(). */
const subscriptions = new Map<string, LiveSubscription>();
/** Runs whose trace is still growing (not yet finished, failed or cancelled). */
const growingRuns = new Set<string>();

const runStatuses = new Set<string>(['queued', 'running', 'finished', 'failed', 'cancelled']);

function asRunStatus(type: string): RunStatus {
  if (type === 'started' || type === 'progress') {
    return 'running';
  }
  return runStatuses.has(type) ? (type as RunStatus) : 'running';
}

/**
 * Shows run `runId` as the trace on screen and feeds its live batches into a growing trace.
 * Each binary frame is applied in sequence order; each apply bumps dataVersion so the canvas
 * redraws the new ops.
 */
export function followRun(runId: string): void {
  stopFollowing();
  const decoder = new TraceDecoder();
  registerTrace(runId, decoder.trace);
  const store = appStore.getState();
  store.openTrace(runId);
  store.markTraceLoaded(runId, 'live');
  const subscription = new LiveSubscription(runId, {
    onBatches: (batches) => {
      try {
        decoder.apply(batches);
      } catch (error) {
        appStore
          .getState()
          .notify('error', `live data for ${runId} was rejected: ${messageOf(error)}`);
        return;
      }
      const state = appStore.getState();
      state.bumpDataVersion();
      state.updateRun(runId, { opsReceived: decoder.trace.ops.count });
    },
    onControl: (control) => {
      const state = appStore.getState();
      const status = asRunStatus(control.type);
      const position = control.message['position'];
      const reason = control.message['reason'];
      state.updateRun(runId, {
        status,
        position: typeof position === 'number' ? position : null,
        ...(typeof reason === 'string' ? { reason } : {}),
      });
      if (status === 'finished' || status === 'failed' || status === 'cancelled') {
        growingRuns.delete(runId);
        state.markTraceLoaded(runId, 'ready');
        void refreshTraceList();
        // A run stopped or cut short keeps what arrived (a profiled program's Stop): its
        // findings are as useful as a finished run's.
        if (status === 'finished' || decoder.trace.ops.count > 0) {
          void loadAnalysis(runId);
        }
      }
    },
    onError: (message) => appStore.getState().notify('error', message),
  });
  subscriptions.set(runId, subscription);
  growingRuns.add(runId);
}

/** Closes every live subscription (leaving the run page, or starting another run). */
export function stopFollowing(): void {
  for (const subscription of subscriptions.values()) {
    subscription.close();
  }
  subscriptions.clear();
  // A run left before it ended holds a partial trace: drop it so a reopen fetches it whole.
  for (const runId of growingRuns) {
    forgetTrace(runId);
  }
  growingRuns.clear();
}
