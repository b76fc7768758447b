import type { Trace } from '@streamscope/trace';
import type { TraceAnalysis } from '../api/types.ts';

/**
 * The big tables live here, outside the store (STYLE.md B.6): the store holds a trace id and a
 * dataVersion counter, and readers look the trace up by id.
 */
const traces = new Map<string, Trace>();
const analyses = new Map<string, TraceAnalysis>();
/** Why a trace's analysis could not be had (the server's message: too big for its memory, …). */
const analysisFailures = new Map<string, string>();

export function registerTrace(id: string, trace: Trace): void {
  traces.set(id, trace);
}

export function getTrace(id: string | null): Trace | undefined {
  return id === null ? undefined : traces.get(id);
}

export function forgetTrace(id: string): void {
  traces.delete(id);
  analyses.delete(id);
  analysisFailures.delete(id);
}

export function setAnalysis(id: string, analysis: TraceAnalysis): void {
  analyses.set(id, analysis);
  analysisFailures.delete(id);
}

export function setAnalysisFailure(id: string, message: string): void {
  analysisFailures.set(id, message);
}

export function getAnalysisFailure(id: string | null): string | undefined {
  return id === null ? undefined : analysisFailures.get(id);
}

export function getAnalysisFor(id: string | null): TraceAnalysis | undefined {
  return id === null ? undefined : analyses.get(id);
}
