import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { Request, Response, Router } from 'express';
import { parseContentEncoding } from '../../imports/content-encoding.ts';
import { ApiError, badRequest, notFound } from '../api-error.ts';
import { strictRouter } from '../api-router.ts';
import { queryString } from '../params.ts';
import type { AppServices } from '../services.ts';

const uploadIdPattern = /^[A-Za-z0-9_-]{8,64}$/;
/** How long a refused upload's client may go on sending before its connection is closed. */
const refusedBodyLingerMs = 5_000;

/** Uploads for import, streamed to disk, and their progress. */
export function importRoutes(services: AppServices): Router {
  const router = strictRouter();

  router.put('/imports', async (req, res) => {
    const fileName = parseFileName(queryString(req, 'filename'));
    const uploadId = queryString(req, 'uploadId') ?? randomBytes(9).toString('base64url');
    if (!uploadIdPattern.test(uploadId)) {
      throw badRequest('uploadId must be 8 to 64 characters of [A-Za-z0-9_-]', 'uploadId');
    }
    const ifDuplicate = queryString(req, 'ifDuplicate') ?? 'import';
    if (ifDuplicate !== 'import' && ifDuplicate !== 'offer') {
      throw badRequest("ifDuplicate must be 'import' or 'offer'", 'ifDuplicate');
    }
    const lengthHeader = req.headers['content-length'];
    const declaredBytes = lengthHeader === undefined ? undefined : Number(lengthHeader);
    try {
      // Refused by its Content-Length at once, before a byte of the body is read (a client that
      // asked `Expect: 100-continue` is never told to send it).
      services.imports.checkDeclaredBytes(declaredBytes);
    } catch (error) {
      endRefused(req, res, false);
      throw error;
    }
    const expectsContinue = req.headers.expect?.toLowerCase() === '100-continue';
    if (expectsContinue) {
      res.writeContinue();
    }
    const aborter = new AbortController();
    req.on('close', () => {
      if (!req.complete) {
        aborter.abort();
      }
    });
    // A client that goes away once its file is in (while it is parsed) cancels the import.
    res.on('close', () => {
      if (req.complete && !res.writableFinished) {
        void services.imports.cancel(uploadId);
      }
    });
    try {
      const contentCodings = parseContentEncoding(req.headers['content-encoding']);
      // The body goes through a stream of its own: a failing import destroys that one, never the
      // request, so the answer still reaches the client (see endRefused).
      const body = new PassThrough();
      req.pipe(body);
      const entry = await services.imports.receive({
        body,
        fileName,
        uploadId,
        contentCodings,
        signal: aborter.signal,
        ifDuplicate,
        ...(declaredBytes !== undefined && Number.isFinite(declaredBytes) ? { declaredBytes } : {}),
      });
      // 200 for the earlier import of the same bytes (ifDuplicate=offer): nothing was created.
      res
        .status(entry.alreadyImported === true ? 200 : 201)
        .location(`/api/traces/${entry.id}`)
        .json(entry);
    } catch (error) {
      endRefused(req, res, expectsContinue);
      throw error;
    }
  });

  router.get('/imports/:uploadId/progress', (req, res) => {
    const uploadId = parseUploadId(req.params['uploadId']);
    const progress = services.imports.progress(uploadId);
    if (progress === undefined) {
      throw notFound(`no upload '${uploadId}' in progress or recently finished`);
    }
    res.json(progress);
  });

  router.post('/imports/:uploadId/cancel', async (req, res) => {
    const uploadId = parseUploadId(req.params['uploadId']);
    const progress = await services.imports.cancel(uploadId);
    if (progress === undefined) {
      throw notFound(`no upload '${uploadId}' in progress or recently finished`);
    }
    res.json(progress);
  });

  return router;
}

/**
 * Lets a refused upload's answer reach its client. A client still sending its body would see a
 * reset, not the answer, if the connection closed under it: the rest of the body is read and
 * dropped (stored nowhere) for a few seconds, then the connection is closed. A client that
 * waits for `100 Continue` sends nothing more, so its connection closes after the answer.
 */
function endRefused(req: Request, res: Response, continued: boolean): void {
  if (req.complete || req.destroyed) {
    return;
  }
  if (req.headers.expect?.toLowerCase() === '100-continue' && !continued) {
    res.setHeader('Connection', 'close');
    return;
  }
  const linger = setTimeout(() => req.socket.destroy(), refusedBodyLingerMs);
  linger.unref();
  req.once('end', () => clearTimeout(linger));
  req.once('close', () => clearTimeout(linger));
  req.unpipe();
  req.resume();
}

function parseUploadId(raw: string | undefined): string {
  if (raw === undefined || !uploadIdPattern.test(raw)) {
    throw badRequest('uploadId must be 8 to 64 characters of [A-Za-z0-9_-]', 'uploadId');
  }
  return raw;
}

/** A plain file name: no folders, no control characters, 1 to 255 characters. */
function parseFileName(raw: string | undefined): string {
  if (raw === undefined || raw === '') {
    throw badRequest('the filename query parameter is required', 'filename');
  }
  // eslint-disable-next-line no-control-regex
  if (raw.length > 255 || /[/\\\x00-\x1f\x7f]/.test(raw) || raw === '.' || raw === '..') {
    throw new ApiError(
      400,
      'bad-filename',
      'filename must be a plain file name (no folders or control characters, at most 255 characters)',
      'filename',
    );
  }
  return raw;
}
