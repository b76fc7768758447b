import path from 'node:path';
import type { Router } from 'express';
import type { TraceEntry } from '../../api-types.ts';
import { isValidId, newId } from '../../storage/trace-store.ts';
import { storedTraceFile } from '../../workers/trace-files.ts';
import { importOpsHint } from '../../imports/import-failures.ts';
import { storeImported } from '../../imports/store-imported.ts';
import { mergeKeyOf } from '../../imports/merge-key.ts';
import { ApiError, badRequest, notFound } from '../api-error.ts';
import { strictRouter } from '../api-router.ts';
import { jsonObjectBody } from '../params.ts';
import type { AppServices } from '../services.ts';

/** Most traces one merge takes: ranks of one job, not a whole cluster's history. */
export const maxMergedTraces = 64;
const maxTitleLength = 200;

/**
 * POST /api/imports/merge {ids, title?}: stored traces (each rank's file, uploaded as usual)
 * become one new stored trace with a group per rank, aligned on the files' wall clock. The
 * inputs stay listed. A merge of the same inputs and title as an earlier one (merge-key.ts)
 * answers 200 with that trace's entry and `alreadyImported`, storing nothing, as an upload of
 * bytes imported before does with ifDuplicate=offer; a new merge answers 201.
 */
export function mergeRoutes(services: AppServices): Router {
  const router = strictRouter();
  /** Merges being made, by key: the same merge asked for again meanwhile waits for this one. */
  const running = new Map<string, Promise<TraceEntry>>();

  router.post('/imports/merge', async (req, res) => {
    const merge = services.tools.mergeRanks;
    if (merge === undefined) {
      throw new ApiError(501, 'unsupported', 'this server cannot merge traces (no importers)');
    }
    const { ids, title } = parseMergeRequest(jsonObjectBody(req));
    const { store } = services;
    const entries: TraceEntry[] = [];
    for (const [i, id] of ids.entries()) {
      const stored = store.get(id);
      if (stored === undefined) {
        throw notFound(`no trace '${id}' (ids[${i}])`);
      }
      if (!store.hasTraceFile(id)) {
        throw new ApiError(409, 'no-data', `trace '${id}' (ids[${i}]) has no data to merge`);
      }
      entries.push(stored.entry);
    }
    const mergeKey = mergeKeyOf(entries, title);
    const earlier =
      store.list().find((e) => e.mergeKey === mergeKey) ?? (await running.get(mergeKey));
    if (earlier !== undefined) {
      // Nothing new was made: 200, as for an upload's earlier import of the same bytes.
      res
        .status(200)
        .location(`/api/traces/${earlier.id}`)
        .json({ ...earlier, alreadyImported: true });
      return;
    }
    // The merge holds every input and the merged trace at once: the limit one import keeps
    // applies to them together, checked before any is read.
    const opsInAll = entries.reduce((sum, entry) => sum + entry.opCount, 0);
    const maxOps = services.limits.importOps;
    if (opsInAll > maxOps) {
      throw new ApiError(
        413,
        'too-large',
        `these ${ids.length} traces hold ${opsInAll} ops together, over the limit of ${maxOps} ops an import keeps; ${importOpsHint}`,
      );
    }
    const inputs = entries.map((entry) => ({
      trace: storedTraceFile(store.tracePath(entry.id), entry.opCount).ref,
      fileName: entry.fileName ?? entry.title,
    }));
    const making = mergeAndStore(services, merge, inputs, title, mergeKey);
    running.set(mergeKey, making);
    let entry: TraceEntry;
    try {
      entry = await making;
    } finally {
      running.delete(mergeKey);
    }
    res.status(201).location(`/api/traces/${entry.id}`).json(entry);
  });

  return router;
}

type MergeRanks = NonNullable<AppServices['tools']['mergeRanks']>;

/** Merges the inputs in a worker thread and lists the result as a new import. */
async function mergeAndStore(
  services: AppServices,
  merge: MergeRanks,
  inputs: Parameters<MergeRanks>[0],
  title: string | undefined,
  mergeKey: string,
): Promise<TraceEntry> {
  const { store } = services;
  // Read and merged in a worker thread, which writes the trace beside the uploads (startup
  // clears them of a crash's leftovers); it is moved in from there.
  const merged = await merge(inputs, title, path.join(store.uploadsDir, `merge-${newId()}`));
  return storeImported(store, merged, { title: merged.title, mergeKey }, services.log);
}

function parseMergeRequest(body: Record<string, unknown>): {
  ids: string[];
  title: string | undefined;
} {
  const ids = body['ids'];
  if (!Array.isArray(ids) || ids.length < 2 || ids.length > maxMergedTraces) {
    throw badRequest(`ids must be an array of 2 to ${maxMergedTraces} trace ids`, '$.ids');
  }
  const seen = new Set<string>();
  ids.forEach((id: unknown, i) => {
    if (typeof id !== 'string' || !isValidId(id)) {
      throw badRequest('expected a trace id', `$.ids[${i}]`);
    }
    if (seen.has(id)) {
      throw badRequest(`trace '${id}' is given twice`, `$.ids[${i}]`);
    }
    seen.add(id);
  });
  const title = body['title'];
  if (
    title !== undefined &&
    (typeof title !== 'string' || title.trim() === '' || title.length > maxTitleLength)
  ) {
    throw badRequest(
      `title must be a non-empty string of at most ${maxTitleLength} characters`,
      '$.title',
    );
  }
  for (const key of Object.keys(body)) {
    if (key !== 'ids' && key !== 'title') {
      throw badRequest(`unknown field '${key}'`, `$.${key}`);
    }
  }
  return { ids: ids as string[], title };
}
