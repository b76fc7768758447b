import { summarizeRun } from '@streamscope/analysis';
import { ImportError, mergeRanks } from '@streamscope/importers';
import type { Trace } from '@streamscope/trace';
import { ApiError } from '../http/api-error.ts';
import type { TraceTools } from '../http/services.ts';
import type { ServerWorkers } from '../workers/server-workers.ts';
import { sharedWorkers } from '../workers/server-workers.ts';

/**
 * Analysis for GET /api/traces/:id/analysis and the Chrome trace export, both in worker threads
 * that read the stored trace file themselves; the export streams.
 */
export function traceTools(workers: ServerWorkers = sharedWorkers()): TraceTools {
  return {
    analyze: (trace, window) => workers.analyze(trace, window),
    exportChrome: (trace, signal) => workers.exportChrome(trace, signal),
    buildTiles: (trace, outPath) => workers.buildTiles(trace, outPath),
    mergeRanks: (inputs, title) => {
      try {
        return mergeRanks(inputs, title === undefined ? {} : { title });
      } catch (error) {
        if (error instanceof ImportError) {
          throw new ApiError(422, 'merge-failed', error.message, error.path ?? error.file);
        }
        throw error;
      }
    },
  };
}

/** The summary a finished run reports on the live channel. */
export function summarize(trace: Trace): unknown {
  return summarizeRun(trace);
}
