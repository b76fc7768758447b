import { saveTrace } from '@streamscope/trace';
import { ApiError } from '../../http/api-error.ts';
import { tilesBeside, windowFromTiles } from '../../storage/tile-window.ts';
import type { TraceWindow } from '../../storage/trace-window.ts';
import { windowOf } from '../../storage/trace-window.ts';
import { loadTraceFile } from '../load-trace-file.ts';
import type { TraceFileRef } from '../protocol.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/**
 * A window of a stored trace (GET /api/traces/:id/data?fromNs…), or the whole of it without one
 * (a live run's snapshot, which lacks its end batch), as codec bytes (transferred).
 */
export async function windowTask(
  ref: TraceFileRef,
  window: TraceWindow | undefined,
  ctx: TaskContext,
): Promise<TaskResult> {
  const bytes = await cutTraceFile(ref, window, ctx.signal);
  return { result: bytes, transfer: [bytes.buffer as ArrayBuffer] };
}

/**
 * The window (or the whole trace) of a trace file as codec bytes, on the calling thread: a
 * worker's, or the server's own where it was built without worker threads. A window of a stored
 * trace with a tiles file beside it (a big trace, whose view zooms in from tiles) is read from
 * that file's rows, at the cost of the window's ops; otherwise the trace is decoded whole.
 */
export async function cutTraceFile(
  ref: TraceFileRef,
  window: TraceWindow | undefined,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const tilesPath = await windowTilesPath(ref, window);
  if (window !== undefined && tilesPath !== undefined) {
    return windowFromTiles(tilesPath, window);
  }
  const trace = await loadTraceFile(ref, signal);
  if (window === undefined) {
    return saveTrace(trace);
  }
  if (window.tracks?.some((t) => t >= trace.tracks.length) === true) {
    throw new ApiError(
      400,
      'bad-request',
      `tracks must be below the trace's ${trace.tracks.length} tracks`,
      'tracks',
    );
  }
  return saveTrace(windowOf(trace, window));
}

/**
 * The tiles file a window of `ref` is read from, or undefined when the trace is decoded whole
 * for it (no window, a live run's partial file, no tiles file of this version beside it).
 */
export async function windowTilesPath(
  ref: TraceFileRef,
  window: TraceWindow | undefined,
): Promise<string | undefined> {
  return window === undefined || ref.partial ? undefined : await tilesBeside(ref.path);
}
