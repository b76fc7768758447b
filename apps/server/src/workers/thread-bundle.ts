import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';
import { isRunning } from '../../scripts/bundle-cache.mjs';
import type { ThreadScript } from './thread-script.ts';
import { isBundled } from './thread-script.ts';

// Under tsx the worker threads run the server's TypeScript module by module through tsx's
// loader, and the same code runs slower that way than as one esbuild bundle: imports of the
// generated kineto traces 10–22% slower, the 17.6M-op trace's analysis up to 10% (#22; the hot
// helpers are called across modules). So `serve` bundles the worker pool's entry when it starts,
// as the bench bundle does (apps/server/scripts/node-bundle-options.mjs), and starts its threads
// on that.

const serverRoot = fileURLToPath(new URL('../../', import.meta.url));
/** A bundle's folder: `streamscope-threads-<pid of the server>-<random>` in the temp folder. */
const folderPrefix = 'streamscope-threads-';
const stalePattern = new RegExp(`^${folderPrefix}(\\d+)-`);

interface BundleOptionsModule {
  bundleServerCompanions(
    esbuild: typeof Esbuild,
    serverRoot: string,
    outDir: string,
  ): Promise<readonly string[]>;
}

/** The worker pool's entry bundled into a folder of its own, and how to remove that folder. */
export interface BundledThreads {
  readonly script: ThreadScript;
  remove(): void;
}

/**
 * Bundles the worker pool's entry (with its companions: the metadata thread, the executor's
 * child script, sql.js's WebAssembly) into a fresh temporary folder. Undefined when the server
 * already runs from a bundle, or esbuild is not installed (a production install without dev
 * dependencies): the threads then run from the sources through tsx, as they always could.
 */
export async function bundleThreads(): Promise<BundledThreads | undefined> {
  // A bundled server (the CLI runs from one) removes those of other servers too.
  removeStaleFolders(os.tmpdir());
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
  const outDir = mkdtempSync(path.join(os.tmpdir(), `${folderPrefix}${process.pid}-`));
  const remove = (): void => rmSync(outDir, { recursive: true, force: true });
  try {
    await options.bundleServerCompanions(esbuild, serverRoot, outDir);
  } catch (error) {
    remove();
    throw error;
  }
  return { script: { url: pathToFileURL(path.join(outDir, 'worker-main.mjs')) }, remove };
}

/**
 * Removes the bundle folders of servers that no longer run (killed before they could remove
 * their own: SIGKILL, a crash), found by the process id in their names.
 */
export function removeStaleFolders(tmpDir: string): void {
  for (const name of readdirSync(tmpDir)) {
    const pid = Number(stalePattern.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !isRunning(pid)) {
      rmSync(path.join(tmpDir, name), { recursive: true, force: true });
    }
  }
}
