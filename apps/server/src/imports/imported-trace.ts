import type { Trace } from '@streamscope/trace';
import { saveTrace } from '@streamscope/trace';

/**
 * A trace made off the event loop (an import, a checked container, a merge) in the form it is
 * stored in: codec bytes, ready to write as they are, and what its trace entry lists. The event
 * loop never decodes or encodes it.
 */
export interface ImportedTrace {
  readonly traceBytes: Uint8Array;
  readonly warnings: readonly string[];
  readonly opCount: number;
  readonly spanNs: number;
  /** The trace's own title ('untitled' or empty when it has none). */
  readonly title: string;
  readonly sourceFormat: string;
  /** The pyramid made with it (a big trace: workers/tile-pyramid.ts pyramidAtImport), to move beside it. */
  readonly tilesPath?: string;
}

/** Encodes a trace for storing (on the thread that made it: a worker, or a test). */
export function importedTraceOf(trace: Trace, warnings: readonly string[]): ImportedTrace {
  return {
    traceBytes: saveTrace(trace),
    warnings,
    opCount: trace.ops.count,
    spanNs: trace.spanNs(),
    title: trace.meta.title,
    sourceFormat: trace.meta.sourceFormat,
  };
}
