import type { Trace } from '@streamscope/trace';
import { saveTrace } from '@streamscope/trace';
import type { TraceStore } from '../storage/trace-store.ts';

/** Stores `trace` as `id`, as a finished import would (file, then its row); returns the id. */
export async function storeAsImport(
  store: TraceStore,
  id: string,
  trace: Trace,
  title = trace.meta.title,
): Promise<string> {
  const fileBytes = await store.writeTraceFile(id, saveTrace(trace));
  store.insert({
    id,
    source: 'import',
    title,
    status: 'imported',
    createdAt: new Date().toISOString(),
    opCount: trace.ops.count,
    spanNs: trace.spanNs(),
    format: trace.meta.sourceFormat,
    fileBytes,
  });
  return id;
}
