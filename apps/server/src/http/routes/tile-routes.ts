import type { Router } from 'express';
import { encodeTiles } from '@streamscope/trace';
import { TilePyramids } from '../../storage/tile-pyramids.ts';
import type { TileFile } from '../../storage/tile-file.ts';
import { searchTiles } from '../../storage/tile-search.ts';
import { storedTraceFile } from '../../workers/trace-files.ts';
import { ApiError, badRequest, conflict, notFound } from '../api-error.ts';
import { strictRouter } from '../api-router.ts';
import { idParam, nameQuery, queryNumber, queryString, requiredNumber } from '../params.ts';
import type { AppServices } from '../services.ts';
import { matchingNameIds } from './search-names.ts';

/** Widest tiles answer, px (the server reads at most a few buckets per px per track). */
export const maxTilePx = 16_384;
/** Most matches one search answer lists. */
export const maxSearchLimit = 1000;
const maxQueryChars = 200;

/**
 * What a view of a big stored trace fetches instead of the whole trace: level-of-detail tiles
 * for a time range and resolution, search over the whole trace, one op's details. The exact ops
 * of a window come from GET /traces/:id/data?fromNs&toNs (trace-routes.ts).
 */
export function tileRoutes(services: AppServices): Router {
  const router = strictRouter();
  const { store, runs } = services;
  const build = services.tools.buildTiles;
  const pyramids =
    build === undefined ? undefined : new TilePyramids((id) => store.tilesPath(id), build);

  const tilesOf = async (id: string): Promise<TileFile> => {
    const stored = store.get(id);
    if (stored === undefined) {
      throw notFound(`no trace '${id}'`);
    }
    if (runs.isLive(id)) {
      throw conflict(
        `run '${id}' is ${stored.entry.status}: tiles are made once a trace is stored`,
      );
    }
    if (!store.hasTraceFile(id)) {
      throw new ApiError(404, 'no-data', `trace '${id}' has no data (${stored.entry.status})`);
    }
    if (pyramids === undefined) {
      throw new ApiError(501, 'not-available', 'tiles are not available in this build');
    }
    return pyramids.get(id, storedTraceFile(store.tracePath(id), stored.entry.opCount).ref);
  };

  router.get('/traces/:id/tiles/meta', async (req, res) => {
    const file = await tilesOf(idParam(req));
    const h = file.header;
    res.json({
      opCount: h.opCount,
      spanNs: h.spanNs,
      trackCount: h.trackCount,
      levelCount: h.levelCount,
      fanout: h.fanout,
      level0BucketNs: h.level0BucketNs,
    });
  });

  router.get('/traces/:id/tiles/skeleton', async (req, res) => {
    const file = await tilesOf(idParam(req));
    res.set({ 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' });
    res.end(await file.skeleton());
  });

  router.get('/traces/:id/tiles', async (req, res) => {
    const id = idParam(req);
    const t0Ns = requiredNumber(req, 't0Ns');
    const t1Ns = requiredNumber(req, 't1Ns');
    const px = requiredNumber(req, 'px');
    if (!(t1Ns > t0Ns)) {
      throw badRequest(`t1Ns (${t1Ns}) must be greater than t0Ns (${t0Ns})`, 't1Ns');
    }
    if (!Number.isInteger(px) || px < 1 || px > maxTilePx) {
      throw badRequest(`px must be an integer from 1 to ${maxTilePx}, got ${px}`, 'px');
    }
    const file = await tilesOf(id);
    const level = file.levelFor((t1Ns - t0Ns) / px);
    const bytes = encodeTiles(await file.tiles(level, t0Ns, t1Ns));
    res.set({ 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' });
    res.end(bytes);
  });

  router.get('/traces/:id/search', async (req, res) => {
    const id = idParam(req);
    const q = queryString(req, 'q');
    if (q === undefined || q.trim() === '') {
      throw badRequest('q (the name to find) is required', 'q');
    }
    if (q.length > maxQueryChars) {
      throw badRequest(`q must be at most ${maxQueryChars} characters`, 'q');
    }
    const query = nameQuery(q, queryString(req, 'regex'));
    const fromNs = queryNumber(req, 'fromNs') ?? -Infinity;
    const direction = queryString(req, 'direction') ?? 'next';
    if (direction !== 'next' && direction !== 'previous') {
      throw badRequest(`direction must be 'next' or 'previous', got '${direction}'`, 'direction');
    }
    const limit = queryNumber(req, 'limit') ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > maxSearchLimit) {
      throw badRequest(
        `limit must be an integer from 1 to ${maxSearchLimit}, got ${limit}`,
        'limit',
      );
    }
    const file = await tilesOf(id);
    const nameIds = await matchingNameIds(services, store.tilesPath(id), query);
    res.json(await searchTiles(file, nameIds, fromNs, direction, limit));
  });

  router.get('/traces/:id/ops/:index', async (req, res) => {
    const id = idParam(req);
    const raw = req.params['index'] ?? '';
    const index = Number(raw);
    if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(index)) {
      throw badRequest(`index must be a non-negative integer, got '${raw}'`, 'index');
    }
    const file = await tilesOf(id);
    if (index >= file.header.opCount) {
      throw notFound(`trace '${id}' has ${file.header.opCount} ops; there is no op ${index}`);
    }
    res.json(await file.op(index));
  });

  return router;
}
