import type { ApiError } from '../http/api-error.ts';
import { notFound } from '../http/api-error.ts';
import type { RunManager } from '../runs/run-manager.ts';
import type { TraceStore } from '../storage/trace-store.ts';
import type { ServerMessage } from './protocol.ts';
import { RunLog } from './run-log.ts';

/**
 * The log a subscriber reads: a live run's own, or one rebuilt from the stored file and its
 * frame ends, so a client that reconnects after the run ended (or after a restart) still gets
 * exactly the frames it missed.
 */
export async function openRunLog(
  runId: string,
  runs: RunManager,
  store: TraceStore,
): Promise<RunLog | ApiError> {
  const live = runs.liveLog(runId);
  if (live !== undefined) {
    return live;
  }
  const stored = store.get(runId);
  if (stored === undefined) {
    return notFound(`no run '${runId}'`);
  }
  const { entry } = stored;
  const stream = store.hasTraceFile(runId) ? await store.readTraceFile(runId) : new Uint8Array(0);
  // Imports and recovered files were never streamed: the whole file is frame 0.
  const frameEnds =
    (await store.readFrameEnds(runId, stream.length)) ?? (stream.length > 0 ? [stream.length] : []);
  const frameCount = frameEnds.length;
  let final: ServerMessage | undefined;
  switch (entry.status) {
    case 'finished':
      final = {
        type: 'finished',
        runId,
        frameCount,
        summary: { opCount: entry.opCount, spanNs: entry.spanNs },
      };
      break;
    case 'failed':
      final = { type: 'failed', runId, frameCount, reason: entry.reason ?? 'unknown' };
      break;
    case 'cancelled':
      final = { type: 'cancelled', runId, frameCount };
      break;
    default:
      final = undefined;
  }
  return RunLog.fromStored(runId, entry.status, stream, frameEnds, final);
}
