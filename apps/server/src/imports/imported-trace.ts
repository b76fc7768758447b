import type { Trace } from '@streamscope/trace';
import { traceFileExtension, writeTraceFileAtomic } from '../storage/atomic-file.ts';

/**
 * A trace made off the event loop (an import, a checked container, a merge) in the form it is
 * stored in: a codec file written by the thread that made it, beside its input, for the caller to
 * move into the store (or remove), and what its trace entry lists. The event loop never decodes,
 * encodes or holds it.
 */
export interface ImportedTrace {
  /** The stored form, `<outBase>.sstrace`: moved into the store, or removed by whoever ends the job. */
  readonly tracePath: string;
  readonly fileBytes: number;
  readonly warnings: readonly string[];
  readonly opCount: number;
  readonly spanNs: number;
  /** The trace's own title ('untitled' or empty when it has none). */
  readonly title: string;
  readonly sourceFormat: string;
  /** The pyramid made with it (a big trace: workers/tile-pyramid.ts pyramidAtImport), to move beside it. */
  readonly tilesPath?: string;
}

/**
 * Writes a trace as it will be stored, at `<outBase>.sstrace`, piece by piece (never its whole
 * encoding in memory), on the thread that made it: a worker, the CLI, or a test.
 */
export function importedTraceOf(
  trace: Trace,
  warnings: readonly string[],
  outBase: string,
  signal?: AbortSignal,
): ImportedTrace {
  const tracePath = `${outBase}${traceFileExtension}`;
  return {
    tracePath,
    fileBytes: writeTraceFileAtomic(trace, tracePath, signal),
    warnings,
    opCount: trace.ops.count,
    spanNs: trace.spanNs(),
    title: trace.meta.title,
    sourceFormat: trace.meta.sourceFormat,
  };
}
