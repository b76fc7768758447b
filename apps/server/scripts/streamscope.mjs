import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

// `pnpm streamscope`: the CLI run from an esbuild bundle of its sources, made again when they
// change (bundle-cache.mjs), with its threads' entries beside it as a bundled server expects
// (workers/thread-script.ts). From the sources through tsx it took 0.7 s to start (0.2 s from
// the bundle), and a 1M-GPU-op kineto import took 8.7 s against 7.2, an analysis 3.6 against 2.9
// (#22). Without esbuild (an install without dev dependencies) it runs from the sources through
// tsx, as it always could.

const serverRoot = fileURLToPath(new URL('../', import.meta.url));
const cliSource = path.join(serverRoot, 'src', 'cli', 'main.ts');

/**
 * The bundled CLI's entry, made or reused; undefined when esbuild is not installed. Its folder
 * (in apps/server/.bundle) sits four folders below the repository's root, as the modules that
 * find the repository's files from their own URL (the native addon, the web app's build), so
 * that those URLs name the same files from the bundle.
 */
export async function cliBundle() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const { freshBundle, serverBundlesDir } = await import('./bundle-cache.mjs');
  const { bundleEntry, bundleServerCompanions } = await import('./node-bundle-options.mjs');
  const { dir } = await freshBundle({
    bundlesDir: serverBundlesDir,
    name: 'cli',
    build: async (outDir) => [
      ...(await bundleEntry(esbuild, cliSource, path.join(outDir, 'main.mjs'))),
      ...(await bundleServerCompanions(esbuild, serverRoot, outDir)),
      fileURLToPath(import.meta.url),
    ],
  });
  return pathToFileURL(path.join(dir, 'main.mjs')).href;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  let entry;
  try {
    entry = await cliBundle();
  } catch (error) {
    if (Array.isArray(error?.errors)) {
      // esbuild's own message names the file and line that does not compile.
      process.stderr.write(`streamscope: the CLI could not be bundled: ${String(error)}\n`);
      process.exit(1);
    }
    // Its folder cannot be written (a read-only checkout): the sources serve, only slower.
    process.stderr.write(
      `streamscope: running from the sources (the CLI's bundle could not be made: ${error.message})\n`,
    );
  }
  if (entry === undefined) {
    const { register } = await import('tsx/esm/api');
    register();
    entry = pathToFileURL(cliSource).href;
  }
  const cli = await import(entry);
  cli.runCliProcess();
}
