import { rm } from 'node:fs/promises';
import type { TraceEntry } from '../api-types.ts';
import { adoptPyramid } from '../storage/tile-pyramids.ts';
import type { TraceStore } from '../storage/trace-store.ts';
import { newId } from '../storage/trace-store.ts';
import type { ImportedTrace } from './imported-trace.ts';

/**
 * Lists a trace a worker made (an upload's import, a merge) as a new import: its file and
 * pyramid moved into the store (nothing read, decoded or encoded here), its entry inserted and
 * flushed. `fields` are the entry's own (its title, file name, content hash or merge key). A
 * flush that fails leaves it neither listed now nor after a restart; a move that fails leaves
 * nothing of it behind.
 */
export async function storeImported(
  store: TraceStore,
  imported: ImportedTrace,
  fields: Pick<TraceEntry, 'title'> &
    Partial<Pick<TraceEntry, 'fileName' | 'contentSha256' | 'mergeKey'>>,
  log: (line: string) => void,
): Promise<TraceEntry> {
  const id = newId();
  try {
    await store.adoptTraceFile(id, imported.tracePath);
  } catch (error) {
    await rm(imported.tracePath, { force: true });
    if (imported.tilesPath !== undefined) {
      await rm(imported.tilesPath, { force: true });
    }
    throw error;
  }
  await adoptPyramid(imported.tilesPath, store.tilesPath(id), log);
  const now = new Date().toISOString();
  const { warnings } = imported;
  const entry: TraceEntry = {
    id,
    source: 'import',
    status: 'imported',
    createdAt: now,
    finishedAt: now,
    opCount: imported.opCount,
    spanNs: imported.spanNs,
    format: imported.sourceFormat,
    fileBytes: imported.fileBytes,
    ...fields,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
  store.insert(entry);
  try {
    await store.flush();
  } catch (error) {
    await store.remove(id).catch(() => undefined);
    throw error;
  }
  return entry;
}
