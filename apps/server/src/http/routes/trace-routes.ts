import type { Request, Response, Router } from 'express';
import type { TraceEntry } from '../../api-types.ts';
import type { TraceWindow } from '../../storage/trace-window.ts';
import { ApiError, badRequest, conflict, notFound } from '../api-error.ts';
import { strictRouter } from '../api-router.ts';
import { idParam, queryNumber, queryString } from '../params.ts';
import type { AppServices } from '../services.ts';
import type { TraceFileLease } from '../../workers/trace-files.ts';
import { snapshotRunLog, storedTraceFile } from '../../workers/trace-files.ts';
import { cutTraceFile } from '../../workers/tasks/window-task.ts';

/** List, read, window, analyze, export and delete traces (runs and imports). */
export function traceRoutes(services: AppServices): Router {
  const router = strictRouter();
  const { store, runs } = services;

  const withPosition = (entry: TraceEntry): TraceEntry => {
    const position = entry.status === 'queued' ? runs.position(entry.id) : undefined;
    return position === undefined ? entry : { ...entry, position };
  };

  const entryOf = (id: string): TraceEntry => {
    const stored = store.get(id);
    if (stored === undefined) {
      throw notFound(`no trace '${id}'`);
    }
    return withPosition(stored.entry);
  };

  /**
   * The file a worker thread reads for the trace: the stored one, or a snapshot of a live run's
   * record stream so far (released once read).
   */
  const traceFileOf = async (id: string): Promise<TraceFileLease> => {
    const entry = entryOf(id);
    const log = runs.liveLog(id);
    const live = runs.liveTrace(id);
    if (live !== undefined && log !== undefined) {
      return snapshotRunLog(log, store.tracesDir, id, live.ops.count);
    }
    if (!store.hasTraceFile(id)) {
      throw noData(id, entry);
    }
    return storedTraceFile(store.tracePath(id), entry.opCount);
  };

  router.get('/traces', (_req, res) => {
    res.json(store.list().map(withPosition));
  });

  router.get('/traces/:id', (req, res) => {
    res.json(entryOf(idParam(req)));
  });

  router.delete('/traces/:id', async (req, res) => {
    const id = idParam(req);
    const entry = entryOf(id);
    if (runs.isLive(id)) {
      throw conflict(`run '${id}' is ${entry.status}; cancel it first`);
    }
    await store.remove(id);
    runs.replaySources.forget(id);
    res.status(204).end();
  });

  router.get('/traces/:id/data', async (req, res) => {
    const id = idParam(req);
    const window = parseWindow(req);
    if (window === undefined && runs.liveTrace(id) === undefined) {
      const entry = entryOf(id);
      if (!store.hasTraceFile(id)) {
        throw noData(id, entry);
      }
      // Streamed from disk: a big trace never sits whole in the server's memory for this.
      await new Promise<void>((resolve, reject) => {
        res.sendFile(store.tracePath(id), { headers: binaryHeaders(`${id}.sstrace`) }, (error) =>
          error === undefined || error === null ? resolve() : reject(error),
        );
      });
      return;
    }
    // A window, or a live run's trace so far: decoded, cut and encoded in a worker thread, which
    // reads the stored file (or a snapshot of the run's record stream) itself; a server built
    // without worker threads (tests, single-file bundles) does it here.
    const cut = services.tools.window ?? cutTraceFile;
    const file = await traceFileOf(id);
    let bytes: Uint8Array;
    try {
      bytes = await cut(file.ref, window);
    } finally {
      await file.release();
    }
    sendBinary(res, bytes, `${id}.sstrace`);
  });

  router.get('/traces/:id/analysis', async (req, res) => {
    const id = idParam(req);
    const analyze = services.tools.analyze;
    if (analyze === undefined) {
      throw new ApiError(501, 'not-available', 'analysis is not available in this build');
    }
    const window = parseWindow(req);
    const compute = async (): Promise<string> => {
      const file = await traceFileOf(id);
      try {
        // Analyzed and serialized in a worker thread, which reads the trace file itself.
        return await analyze(
          file.ref,
          window === undefined ? undefined : { fromNs: window.fromNs, toNs: window.toNs },
        );
      } finally {
        await file.release();
      }
    };
    // A stored trace's whole analysis is made once and kept; a window's, or a live run's, each
    // time (an unknown id is a 404 from traceFileOf, and no failure is kept).
    const json =
      window === undefined && !runs.isLive(id)
        ? await store.derived.answer(id, 'analysis', compute)
        : await compute();
    res.type('application/json').send(json);
  });

  router.get('/traces/:id/export', async (req, res) => {
    const id = idParam(req);
    const format = queryString(req, 'format') ?? 'chrome';
    if (format !== 'chrome') {
      throw badRequest(`format must be 'chrome', got '${format}'`, 'format');
    }
    const exportChrome = services.tools.exportChrome;
    if (exportChrome === undefined) {
      throw new ApiError(
        501,
        'not-available',
        'Chrome trace export is not available in this build',
      );
    }
    const file = await traceFileOf(id);
    // A client that leaves stops the worker, whether it is still reading the trace or writing.
    const left = new AbortController();
    res.once('close', () => left.abort());
    try {
      // Resolves once the worker has checked the trace file, before it decodes it.
      const json = await exportChrome(file.ref, left.signal);
      res.setHeader('Content-Disposition', `attachment; filename="${id}.trace.json"`);
      res.type('application/json');
      // Streamed as the worker writes it, at the client's pace: no size is too large.
      await json.pipeTo(res).catch((error: unknown) => {
        services.log(`export of ${id} stopped: ${(error as Error).message}`);
      });
    } finally {
      await file.release();
    }
  });

  return router;
}

function noData(id: string, entry: TraceEntry): ApiError {
  return new ApiError(
    404,
    'no-data',
    `trace '${id}' has no data (${entry.status}${entry.reason !== undefined ? `: ${entry.reason}` : ''})`,
  );
}

function parseWindow(req: Request): TraceWindow | undefined {
  const fromNs = queryNumber(req, 'fromNs');
  const toNs = queryNumber(req, 'toNs');
  const tracksRaw = queryString(req, 'tracks');
  if (fromNs === undefined && toNs === undefined && tracksRaw === undefined) {
    return undefined;
  }
  const from = fromNs ?? 0;
  const to = toNs ?? Number.MAX_SAFE_INTEGER;
  if (from > to) {
    throw badRequest(`fromNs (${from}) must not exceed toNs (${to})`, 'fromNs');
  }
  if (tracksRaw === undefined) {
    return { fromNs: from, toNs: to };
  }
  const tracks = tracksRaw.split(',').map((part) => {
    const track = Number(part);
    if (part.trim() === '' || !Number.isInteger(track) || track < 0 || track > 0xffff) {
      throw badRequest(
        `tracks must be a comma-separated list of track indices, got '${part}'`,
        'tracks',
      );
    }
    return track;
  });
  return { fromNs: from, toNs: to, tracks: [...new Set(tracks)] };
}

function binaryHeaders(fileName: string): Record<string, string> {
  return {
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': `attachment; filename="${fileName}"`,
    'Cache-Control': 'no-store',
  };
}

function sendBinary(res: Response, bytes: Uint8Array, fileName: string): void {
  res.set(binaryHeaders(fileName));
  res.end(bytes);
}
