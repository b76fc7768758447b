import { analyzeTrace, summarizeRun } from '@streamscope/analysis';
import { exportChromeTrace } from '@streamscope/importers';
import type { Trace } from '@streamscope/trace';
import type { TraceTools } from '../http/services.ts';

/** Analysis for GET /api/traces/:id/analysis and Chrome trace export. */
export function traceTools(): TraceTools {
  return {
    analyze: (trace, window) => analyzeTrace(trace, window),
    exportChrome: (trace) => exportChromeTrace(trace),
  };
}

/** The summary a finished run reports on the live channel. */
export function summarize(trace: Trace): unknown {
  return summarizeRun(trace);
}
