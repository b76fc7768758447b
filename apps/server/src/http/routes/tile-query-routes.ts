import type { Request, Router } from 'express';
import { tilesBeside } from '../../storage/tile-window.ts';
import type { TraceQuery } from '../../storage/trace-query.ts';
import { answerTraceQuery } from '../../workers/tasks/query-task.ts';
import { storedTraceFile } from '../../workers/trace-files.ts';
import { ApiError, badRequest, conflict, notFound } from '../api-error.ts';
import { strictRouter } from '../api-router.ts';
import { idParam, nameQuery, queryNumber, queryString, requiredNumber } from '../params.ts';
import type { AppServices } from '../services.ts';
import { matchingNameIds } from './search-names.ts';

/** Most buckets a search-marks answer splits the trace's span into. */
const maxMarkBuckets = 8192;
const defaultMarkBuckets = 2048;
const maxQueryChars = 200;

/**
 * What a tiled view (a big stored trace, of which the page holds a window) asks about the whole
 * trace: an area's aggregates, one op's flows, where a search's matches are, what each track's
 * range lane row holds (to label it as the normal view does). Each answer is made in a worker
 * thread, from the trace's tiles file where it has one (query-task.ts); the event loop only
 * parses.
 */
export function tileQueryRoutes(services: AppServices): Router {
  const router = strictRouter();
  const { store, runs } = services;

  const ask = async (id: string, query: TraceQuery): Promise<unknown> => {
    const stored = store.get(id);
    if (stored === undefined) {
      throw notFound(`no trace '${id}'`);
    }
    if (runs.isLive(id)) {
      throw conflict(`run '${id}' is ${stored.entry.status}: ask again once it is stored`);
    }
    if (!store.hasTraceFile(id)) {
      throw new ApiError(404, 'no-data', `trace '${id}' has no data (${stored.entry.status})`);
    }
    const ref = storedTraceFile(store.tracePath(id), stored.entry.opCount).ref;
    if (services.tools.query !== undefined) {
      return services.tools.query(ref, query);
    }
    // A build without worker threads (some tests): answered here.
    return answerTraceQuery(ref, query);
  };

  router.get('/traces/:id/area', async (req, res) => {
    const id = idParam(req);
    const fromNs = requiredNumber(req, 'fromNs');
    const toNs = requiredNumber(req, 'toNs');
    if (fromNs > toNs) {
      throw badRequest(`fromNs (${fromNs}) must not exceed toNs (${toNs})`, 'fromNs');
    }
    res.json(await ask(id, { type: 'area', fromNs, toNs, tracks: trackList(req) }));
  });

  router.get('/traces/:id/flows', async (req, res) => {
    const id = idParam(req);
    const track = requiredNumber(req, 'track');
    if (!Number.isInteger(track) || track < 0 || track > 0xffff) {
      throw badRequest(`track must be a track index, got ${track}`, 'track');
    }
    const startNs = requiredNumber(req, 'startNs');
    res.json(await ask(id, { type: 'flows', track, startNs }));
  });

  router.get('/traces/:id/search/marks', async (req, res) => {
    const id = idParam(req);
    const q = queryString(req, 'q');
    if (q === undefined || q.trim() === '') {
      throw badRequest('q (the name to find) is required', 'q');
    }
    if (q.length > maxQueryChars) {
      throw badRequest(`q must be at most ${maxQueryChars} characters`, 'q');
    }
    // A bad pattern is a 400 here, before a worker reads the trace.
    const query = nameQuery(q, queryString(req, 'regex'));
    const bucketCount = queryNumber(req, 'buckets') ?? defaultMarkBuckets;
    if (!Number.isInteger(bucketCount) || bucketCount < 1 || bucketCount > maxMarkBuckets) {
      throw badRequest(
        `buckets must be an integer from 1 to ${maxMarkBuckets}, got ${bucketCount}`,
        'buckets',
      );
    }
    const marks = { type: 'search-marks' as const, q, regex: query.regex, bucketCount };
    // With a tiles file, the names are matched against it first, in a worker, under the search
    // time limit; the marks are then read from the matched names' postings.
    const tilesPath =
      store.get(id) !== undefined ? await tilesBeside(store.tracePath(id)) : undefined;
    if (tilesPath === undefined || runs.isLive(id) || services.tools.matchNames === undefined) {
      res.json(await ask(id, marks));
      return;
    }
    const nameIds = await matchingNameIds(services, tilesPath, query);
    res.json(await ask(id, { ...marks, nameIds }));
  });

  router.get('/traces/:id/range-lanes', async (req, res) => {
    const id = idParam(req);
    // Made once per stored trace and kept (ask refuses a live run first).
    const json = await store.derived.answer(id, 'range-lanes', async () =>
      JSON.stringify(await ask(id, { type: 'range-lanes' })),
    );
    res.type('application/json').send(json);
  });

  return router;
}

/** `tracks=0,3,4`: track indices (every track when absent). */
function trackList(req: Request): number[] {
  const raw = queryString(req, 'tracks');
  if (raw === undefined) {
    return [];
  }
  const tracks = raw.split(',').map((part) => {
    const track = Number(part);
    if (part.trim() === '' || !Number.isInteger(track) || track < 0 || track > 0xffff) {
      throw badRequest(
        `tracks must be a comma-separated list of track indices, got '${part}'`,
        'tracks',
      );
    }
    return track;
  });
  return [...new Set(tracks)];
}
