import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Router } from 'express';
import type { TraceEntry } from '../../api-types.ts';
import { adoptPyramid } from '../../storage/tile-pyramids.ts';
import { isValidId, newId } from '../../storage/trace-store.ts';
import { storedTraceFile } from '../../workers/trace-files.ts';
import { importOpsHint } from '../../imports/import-failures.ts';
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
 * inputs stay listed.
 */
export function mergeRoutes(services: AppServices): Router {
  const router = strictRouter();

  router.post('/imports/merge', async (req, res) => {
    const merge = services.tools.mergeRanks;
    if (merge === undefined) {
      throw new ApiError(501, 'unsupported', 'this server cannot merge traces (no importers)');
    }
    const { ids, title } = parseMergeRequest(jsonObjectBody(req));
    const { store } = services;
    const inputs = [];
    let opsInAll = 0;
    for (const [i, id] of ids.entries()) {
      const stored = store.get(id);
      if (stored === undefined) {
        throw notFound(`no trace '${id}' (ids[${i}])`);
      }
      if (!store.hasTraceFile(id)) {
        throw new ApiError(409, 'no-data', `trace '${id}' (ids[${i}]) has no data to merge`);
      }
      const entry = stored.entry;
      opsInAll += entry.opCount;
      inputs.push({
        trace: storedTraceFile(store.tracePath(id), entry.opCount).ref,
        fileName: entry.fileName ?? entry.title,
      });
    }
    // The merge holds every input and the merged trace at once: the limit one import keeps
    // applies to them together, checked before any is read.
    const maxOps = services.limits.importOps;
    if (opsInAll > maxOps) {
      throw new ApiError(
        413,
        'too-large',
        `these ${ids.length} traces hold ${opsInAll} ops together, over the limit of ${maxOps} ops an import keeps; ${importOpsHint}`,
      );
    }
    // Read, merged and encoded in a worker thread; its bytes are stored as they are.
    // Written beside the uploads (startup clears them of a crash's leftovers), then moved in.
    const merged = await merge(inputs, title, path.join(store.uploadsDir, `merge-${newId()}`));
    const { warnings, fileBytes } = merged;
    const id = newId();
    try {
      await store.adoptTraceFile(id, merged.tracePath);
    } catch (error) {
      await rm(merged.tracePath, { force: true });
      if (merged.tilesPath !== undefined) {
        await rm(merged.tilesPath, { force: true });
      }
      throw error;
    }
    await adoptPyramid(merged.tilesPath, store.tilesPath(id), services.log);
    const now = new Date().toISOString();
    const entry: TraceEntry = {
      id,
      source: 'import',
      title: merged.title,
      status: 'imported',
      createdAt: now,
      finishedAt: now,
      opCount: merged.opCount,
      spanNs: merged.spanNs,
      format: merged.sourceFormat,
      fileBytes,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
    store.insert(entry);
    await store.flush();
    res.status(201).location(`/api/traces/${id}`).json(entry);
  });

  return router;
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
