import { mkdirSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { build } from 'esbuild';
import { root } from './bench-server.ts';

// `tsx scripts/bench/server-bundle.ts OUT_DIR`: the server benchmark as plain Node files, for a
// machine without node_modules. One esbuild bundle per entry, side by side, as a bundled server
// expects its threads (apps/server/src/workers/thread-script.ts): the CLI (`main.mjs serve`), the
// worker pool's and the metadata thread's entries, the health prober and the bench itself, with
// sql.js's WebAssembly and the executor's child script. Run it from the repository's root: `node OUT_DIR/server-bench-bundled.mjs`.
const outDir = process.argv[2];
if (outDir === undefined) {
  throw new Error('usage: tsx scripts/bench/server-bundle.ts OUT_DIR');
}
const serverRoot = path.join(root, 'apps', 'server');
// The options of the server's own Node bundles (ESM, the require/__dirname CommonJS needs).
const { bundleServerCompanions, nodeBundleOptions } = (await import(
  pathToFileURL(path.join(serverRoot, 'scripts', 'node-bundle-options.mjs')).href
)) as {
  nodeBundleOptions: BuildOptions;
  bundleServerCompanions: (
    esbuild: { build: typeof build },
    serverRoot: string,
    outDir: string,
  ) => Promise<void>;
};
const entries = [
  path.join(serverRoot, 'src', 'cli', 'main.ts'),
  path.join(root, 'scripts', 'bench', 'server-health-probe.ts'),
  path.join(root, 'scripts', 'bench', 'server-bench-bundled.ts'),
];
mkdirSync(outDir, { recursive: true });
for (const entry of entries) {
  await build({
    ...nodeBundleOptions,
    entryPoints: [entry],
    outfile: path.join(outDir, `${path.basename(entry).replace(/\.m?[jt]s$/, '')}.mjs`),
  });
}
// The threads, and the cuda backend's child script, which the server's CUDA probe starts (it
// then finds no addon).
await bundleServerCompanions({ build }, serverRoot, outDir);
process.stdout.write(`server bench bundle: ${outDir}\n`);
