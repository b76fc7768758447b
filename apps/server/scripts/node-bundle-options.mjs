import { copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// esbuild options for the single-file Node bundles sent to the GPU machine (which has Node but
// no node_modules): ESM for Node 20, ws' optional native helpers left out, and the require and
// __dirname that CommonJS dependencies (sql.js, express) expect.
export const nodeBundleOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external: ['bufferutil', 'utf-8-validate'],
  banner: {
    js: [
      "import { createRequire as __cr } from 'node:module';",
      "import { dirname as __dn } from 'node:path';",
      "import { fileURLToPath as __fu } from 'node:url';",
      'const require = __cr(import.meta.url);',
      'const __filename = __fu(import.meta.url);',
      'const __dirname = __dn(__filename);',
    ].join(' '),
  },
  logLevel: 'warning',
};

/**
 * What a bundled server needs beside its own file (workers/thread-script.ts looks there): its
 * threads' entries (the worker pool's and the metadata thread's), bundled one file each, the
 * executor's child script and sql.js's WebAssembly. Every script that bundles a server calls this.
 * Returns the files they were made from (absolute paths), for a cache to tell when they change.
 */
export async function bundleServerCompanions(esbuild, serverRoot, outDir) {
  const inputs = [];
  const threads = [
    path.join(serverRoot, 'src', 'workers', 'worker-main.ts'),
    path.join(serverRoot, 'src', 'storage', 'metadata-worker.mjs'),
  ];
  for (const entry of threads) {
    const result = await esbuild.build({
      ...nodeBundleOptions,
      entryPoints: [entry],
      outfile: path.join(outDir, `${path.basename(entry).replace(/\.m?[jt]s$/, '')}.mjs`),
      metafile: true,
    });
    inputs.push(...metafileInputs(result.metafile));
  }
  const require = createRequire(path.join(serverRoot, 'package.json'));
  const copies = [
    path.join(serverRoot, '..', '..', 'packages', 'executor', 'src', 'cuda', 'child-host.mjs'),
    require.resolve('sql.js/dist/sql-wasm.wasm'),
  ];
  for (const file of copies) {
    copyFileSync(file, path.join(outDir, path.basename(file)));
  }
  return [...inputs, ...copies];
}

/** The files an esbuild build with `metafile: true` read, as absolute paths. */
export function metafileInputs(metafile) {
  // esbuild names them relative to its working folder, this process's unless told otherwise.
  return Object.keys(metafile.inputs).map((input) => path.resolve(input));
}
