import { stat } from 'node:fs/promises';
import type { ApiError } from '../http/api-error.ts';
import { notFound } from '../http/api-error.ts';
import type { RunManager } from '../runs/run-manager.ts';
import type { TraceStore } from '../storage/trace-store.ts';
import type { RunFeed } from './feed.ts';
import type { ServerMessage } from './protocol.ts';
import { batchFrameEnds, storedRunFeed } from './stored-run.ts';

/**
 * The feed a subscriber reads: a live run's own log, or the stored file read frame by frame
 * (by its frame ends), so a client that reconnects after the run ended (or after a restart)
 * still gets exactly the frames it missed, and a stored run is never held whole in memory.
 */
export async function openRunLog(
  runId: string,
  runs: RunManager,
  store: TraceStore,
): Promise<RunFeed | ApiError> {
  const live = runs.liveLog(runId);
  if (live !== undefined) {
    return live.feed();
  }
  const stored = store.get(runId);
  if (stored === undefined) {
    return notFound(`no run '${runId}'`);
  }
  const { entry } = stored;
  const filePath = store.hasTraceFile(runId) ? store.tracePath(runId) : undefined;
  let frameEnds: Float64Array = new Float64Array(0);
  if (filePath !== undefined) {
    try {
      const fileBytes = (await stat(filePath)).size;
      // Imports and recovered files were never streamed: their frames are runs of whole batches.
      frameEnds = (await store.readFrameEnds(runId, fileBytes)) ?? (await batchFrameEnds(filePath));
    } catch {
      return notFound(`run '${runId}' has no readable trace file`);
    }
  }
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
  return storedRunFeed({
    runId,
    status: entry.status,
    frameEnds,
    ...(filePath !== undefined ? { filePath } : {}),
    ...(final !== undefined ? { final } : {}),
  });
}
