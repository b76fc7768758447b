import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextFunction, Request, Response, Router } from 'express';
import express from 'express';
import { strictRouter } from './api-router.ts';

/**
 * The web app's build in this repository. Like every path found from a module's own URL, it
 * climbs from a folder four levels below the root, where the CLI's bundle also sits
 * (apps/server/scripts/cli-bundle.mjs), so it names the same folder from either.
 */
export const defaultWebDistDir = fileURLToPath(new URL('../../../web/dist', import.meta.url));

const contentSecurityPolicy = [
  "default-src 'self'",
  // 'wasm-unsafe-eval' lets the local import worker compile sql.js (SQLite in WebAssembly); it
  // allows WebAssembly compilation only, never JavaScript eval.
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The built web app (apps/web/dist) with a single-page fallback: any GET outside /api that is not
 * a file gets index.html. Without a build it answers with how to make one.
 */
export function staticWeb(distDir: string): Router {
  const router = strictRouter();
  const indexPath = path.join(distDir, 'index.html');
  router.use((_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', contentSecurityPolicy);
    next();
  });
  router.use(
    express.static(distDir, { index: 'index.html', fallthrough: true, dotfiles: 'ignore' }),
  );
  router.get(/^(?!\/api\/).*/, (_req, res) => {
    if (existsSync(indexPath)) {
      res.sendFile(indexPath);
      return;
    }
    res
      .status(503)
      .type('text/plain')
      .send(
        'The web app is not built. Run `pnpm --filter @streamscope/web build`, then reload.\nThe API is at /api.\n',
      );
  });
  return router;
}
