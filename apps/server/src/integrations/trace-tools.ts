import { analyzeTrace, summarizeRun } from '@streamscope/analysis';
import { ImportError, exportChromeTrace, mergeRanks } from '@streamscope/importers';
import type { Trace } from '@streamscope/trace';
import { ApiError } from '../http/api-error.ts';
import type { TraceTools } from '../http/services.ts';

/** Analysis for GET /api/traces/:id/analysis and Chrome trace export. */
export function traceTools(): TraceTools {
  return {
    analyze: (trace, window) => analyzeTrace(trace, window),
    exportChrome: (trace) => exportChromeTrace(trace),
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
