import { TileFile } from '../../storage/tile-file.ts';
import { areaFromTiles, flowsFromTiles, searchMarksFromTiles } from '../../storage/tile-queries.ts';
import { tilesBeside } from '../../storage/tile-window.ts';
import { rangeLaneSummariesOf } from '@streamscope/trace';
import type { RangeLanesAnswer, TraceQuery } from '../../storage/trace-query.ts';
import { answerQuery } from '../../storage/trace-query.ts';
import { loadTraceFile, withTraceBatches } from '../load-trace-file.ts';
import type { TraceFileRef } from '../protocol.ts';
import type { TaskContext, TaskResult } from './task-context.ts';

/** Answers one question about a stored trace (GET …/area, …/flows, …/search/marks). */
export async function queryTask(
  ref: TraceFileRef,
  query: TraceQuery,
  ctx: TaskContext,
): Promise<TaskResult> {
  return { result: await answerTraceQuery(ref, query, ctx.signal) };
}

/**
 * The answer to `query` on the calling thread (a worker's, or the server's own where it was built
 * without worker threads): from the tiles file beside the trace when it has one of this version,
 * at the cost of what the question touches (tile-queries.ts); otherwise from the trace decoded
 * whole (a trace stored before its tiles file was made, or one whose file is of an older version).
 */
export async function answerTraceQuery(
  ref: TraceFileRef,
  query: TraceQuery,
  signal?: AbortSignal,
): Promise<unknown> {
  if (query.type === 'range-lanes') {
    // Summed from the stored ranges a batch at a time, the ops never decoded (the tiles file
    // keeps no range summary): 8.9 GB of decoded ops at 176M ops came to a few batches.
    return withTraceBatches(ref, signal, (reader) =>
      Promise.resolve({
        tracks: rangeLaneSummariesOf(
          reader.trace,
          (function* () {
            for (const batch of reader.rangeBatches()) {
              yield batch.ranges;
            }
          })(),
        ),
      } satisfies RangeLanesAnswer),
    );
  }
  const tilesPath = await queryTilesPath(ref, query);
  if (tilesPath === undefined) {
    return answerQuery(await loadTraceFile(ref, signal), query);
  }
  const file = await TileFile.open(tilesPath);
  try {
    switch (query.type) {
      case 'area':
        return await areaFromTiles(file, query.fromNs, query.toNs, query.tracks);
      case 'flows':
        return await flowsFromTiles(file, query.track, query.startNs);
      case 'search-marks':
        return await searchMarksFromTiles(file, query.nameIds ?? [], query.bucketCount);
    }
  } finally {
    file.close();
  }
}

/**
 * Whether answering `query` decodes the trace whole (what the pool is told it may hold): range
 * lanes read the stored range batches, the rest a tiles file where one serves them.
 */
export async function queryDecodesTrace(ref: TraceFileRef, query: TraceQuery): Promise<boolean> {
  return query.type !== 'range-lanes' && (await queryTilesPath(ref, query)) === undefined;
}

/**
 * The tiles file `query` is answered from, or undefined when it decodes the trace whole (a live
 * run's partial file, no tiles file of this version beside it, or search marks asked by name
 * rather than by the ids matched against the tiles file). Range lanes read neither: see above.
 */
async function queryTilesPath(ref: TraceFileRef, query: TraceQuery): Promise<string | undefined> {
  const tilesPath = ref.partial ? undefined : await tilesBeside(ref.path);
  // Search marks read the tiles file only with names matched against it (under the time limit).
  return query.type !== 'search-marks' || query.nameIds !== undefined ? tilesPath : undefined;
}
