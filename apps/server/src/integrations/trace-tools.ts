import { summarizeRun } from '@streamscope/analysis';
import type { Trace } from '@streamscope/trace';
import type { TraceTools } from '../http/services.ts';
import type { ServerWorkers } from '../workers/server-workers.ts';
import { sharedWorkers } from '../workers/server-workers.ts';

/**
 * Analysis (GET /api/traces/:id/analysis), the Chrome trace export, windows of a trace and the
 * merge of ranks, all in worker threads that read the stored trace files themselves; the export
 * streams.
 */
export function traceTools(workers: ServerWorkers = sharedWorkers()): TraceTools {
  return {
    analyze: (trace, window) => workers.analyze(trace, window),
    exportChrome: (trace, signal) => workers.exportChrome(trace, signal),
    window: (trace, window) => workers.window(trace, window),
    mergeRanks: (inputs, title, outBase) => workers.mergeRanks(inputs, title, outBase),
    buildTiles: (trace, outPath) => workers.buildTiles(trace, outPath),
    replaySource: (trace) => workers.replaySource(trace),
    query: (trace, query) => workers.query(trace, query),
    matchNames: (tilesPath, query, limitMs) => workers.matchNames(tilesPath, query, limitMs),
  };
}

/** The summary a finished run reports on the live channel. */
export function summarize(trace: Trace): unknown {
  return summarizeRun(trace);
}
