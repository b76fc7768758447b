import type { Express, NextFunction, Request, Response } from 'express';
import express from 'express';
import { ApiError, errorBody } from './api-error.ts';
import { strictRouter } from './api-router.ts';
import { importRoutes } from './routes/import-routes.ts';
import { mergeRoutes } from './routes/merge-routes.ts';
import { metaRoutes } from './routes/meta-routes.ts';
import { runRoutes } from './routes/run-routes.ts';
import { tileQueryRoutes } from './routes/tile-query-routes.ts';
import { tileRoutes } from './routes/tile-routes.ts';
import { traceRoutes } from './routes/trace-routes.ts';
import { guard, securityHeaders } from './security.ts';
import type { AppServices } from './services.ts';
import { staticWeb } from './static-web.ts';

/**
 * The Express app: the guard first, for every request whatever its path; then the API, one
 * router mounted at exactly `/api`; then the web app. Routing is case-sensitive and strict, so
 * `/API/traces` or `/api/traces/` reach no route of the API (the guard stops them anyway: only
 * `GET /api/health`, spelled so, is answered without the token).
 */
export function createApp(services: AppServices): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('query parser', 'simple');
  app.use(securityHeaders);
  app.use(guard(services.policy));
  app.use('/api', apiRouter(services));
  app.use(staticWeb(services.webDistDir));
  app.use((req: Request) => {
    throw new ApiError(404, 'not-found', `nothing at ${req.method} ${req.path}`);
  });
  app.use(errorHandler(services.log));
  return app;
}

function apiRouter(services: AppServices) {
  const api = strictRouter();
  const jsonBody = express.json({ limit: services.limits.jsonBodyBytes, type: 'application/json' });
  // Uploads stream their raw body to disk whatever their Content-Type (a browser sends a .json
  // file as application/json): never parse them here.
  api.use((req: Request, res: Response, next: NextFunction) => {
    if (req.path === '/imports') {
      next();
      return;
    }
    jsonBody(req, res, next);
  });
  api.use(metaRoutes(services));
  api.use(runRoutes(services));
  api.use(traceRoutes(services));
  api.use(tileRoutes(services));
  api.use(tileQueryRoutes(services));
  api.use(importRoutes(services));
  api.use(mergeRoutes(services));
  api.use((req: Request) => {
    throw new ApiError(404, 'not-found', `no API route ${req.method} ${req.baseUrl}${req.path}`);
  });
  return api;
}

interface BodyParserError {
  readonly type?: string;
  readonly status?: number;
  readonly message?: string;
  /** zlib's code when the body did not decompress (Z_DATA_ERROR, ERR__ERROR_FORMAT_…). */
  readonly code?: string;
  readonly encoding?: string;
}

/** Every error becomes {error: {code, message, path?}}; unexpected ones are logged, never shown. */
function errorHandler(log: (line: string) => void) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const apiError = toApiError(error, req.headers['content-encoding']);
    if (apiError.status >= 500 && !(error instanceof ApiError)) {
      log(
        `${req.method} ${req.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(apiError.status).json(errorBody(apiError));
  };
}

function toApiError(error: unknown, contentEncoding: string | undefined): ApiError {
  if (error instanceof ApiError) {
    return error;
  }
  const parserError = error as BodyParserError;
  switch (parserError.type) {
    case 'entity.parse.failed':
      return new ApiError(
        400,
        'invalid-json',
        `the body is not valid JSON: ${parserError.message ?? ''}`,
        '$',
      );
    case 'entity.too.large':
      return new ApiError(413, 'too-large', 'the JSON body is larger than the server accepts');
    case 'encoding.unsupported':
      return new ApiError(
        415,
        'unsupported-content-encoding',
        `Content-Encoding '${parserError.encoding ?? contentEncoding ?? ''}' is not read: send gzip, deflate, br or none`,
        'Content-Encoding',
      );
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported-media-type', 'send the body as UTF-8 JSON');
    default:
      break;
  }
  if (/^(Z_|ERR__)/.test(parserError.code ?? '')) {
    return new ApiError(
      400,
      'bad-content-encoding',
      `the body is not valid ${contentEncoding ?? 'compressed'} data (${parserError.message ?? parserError.code ?? ''})`,
      'Content-Encoding',
    );
  }
  const status = parserError.status ?? 500;
  if (status >= 400 && status < 500) {
    // body-parser's other refusals (an aborted body, a length that does not match).
    return new ApiError(status, 'bad-request', parserError.message ?? 'the request was malformed');
  }
  return new ApiError(500, 'internal', 'the server failed to handle this request');
}
