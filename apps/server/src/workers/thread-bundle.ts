import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';
import { freshBundle, serverBundlesDir } from '../../scripts/bundle-cache.mjs';
import type { ThreadScript } from './thread-script.ts';
import { isBundled } from './thread-script.ts';

// Under tsx the worker threads run the server's TypeScript module by module through tsx's
// loader, and the same code runs slower that way than as one esbuild bundle: imports of the
// generated kineto traces 10–22% slower, the 17.6M-op trace's analysis up to 10% (#22; the hot
// helpers are called across modules). A server started from the sources (the CLI runs from a
// bundle with its threads beside it, so this is for the tests' and a tsx-started server) starts
// its threads on a bundle of the worker pool's entry, kept between starts in the same cache as
// the CLI's (apps/server/scripts/bundle-cache.mjs).

const serverRoot = fileURLToPath(new URL('../../', import.meta.url));

interface BundleOptionsModule {
  bundleServerCompanions(
    esbuild: typeof Esbuild,
    serverRoot: string,
    outDir: string,
  ): Promise<readonly string[]>;
}

/**
 * The worker pool's entry bundled with its companions (the metadata thread, the executor's
 * child script, sql.js's WebAssembly), made or reused. Undefined when the server already runs
 * from a bundle, or esbuild is not installed (a production install without dev dependencies):
 * the threads then run from the sources through tsx, as they always could.
 */
export async function bundleThreads(): Promise<ThreadScript | undefined> {
  if (isBundled) {
    return undefined;
  }
  let esbuild: typeof Esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const options = (await import(
    pathToFileURL(path.join(serverRoot, 'scripts', 'node-bundle-options.mjs')).href
  )) as BundleOptionsModule;
  const { dir } = await freshBundle({
    bundlesDir: serverBundlesDir,
    name: 'threads',
    build: async (outDir) => [
      ...(await options.bundleServerCompanions(esbuild, serverRoot, outDir)),
      fileURLToPath(import.meta.url),
    ],
  });
  return { url: pathToFileURL(path.join(dir, 'worker-main.mjs')) };
}
