import { analyzeTrace, summarizeRun } from '@streamscope/analysis';
import type { Trace } from '@streamscope/trace';
import type { TraceTools } from '../http/services.ts';

/** Analysis for GET /api/traces/:id/analysis and the summary a finished run reports. */
export function traceTools(): TraceTools {
  return {
    analyze: (trace, window) => analyzeTrace(trace, window),
  };
}

export function summarize(trace: Trace): unknown {
  return summarizeRun(trace);
}
