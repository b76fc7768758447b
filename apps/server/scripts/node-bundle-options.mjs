import { copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
 * `entry` bundled into `outfile` with the options above; returns the files it was made from
 * (absolute paths, these options among them), for a cache to tell when they change.
 */
export async function bundleEntry(esbuild, entry, outfile) {
  const result = await esbuild.build({
    ...nodeBundleOptions,
    entryPoints: [entry],
    outfile,
    metafile: true,
  });
  // esbuild names its inputs relative to its working folder, this process's unless told otherwise.
  const inputs = Object.keys(result.metafile.inputs).map((input) => path.resolve(input));
  return [...inputs, fileURLToPath(import.meta.url)];
}

/** sql.js's WebAssembly copied into `outDir` (sql.js looks for it beside the script); its path. */
export function copySqlWasm(serverRoot, outDir) {
  const wasm = createRequire(path.join(serverRoot, 'package.json')).resolve(
    'sql.js/dist/sql-wasm.wasm',
  );
  copyFileSync(wasm, path.join(outDir, 'sql-wasm.wasm'));
  return wasm;
}

/**
 * What a bundled server needs beside its own file (workers/thread-script.ts looks there): its
 * threads' entries (the worker pool's and the metadata thread's), bundled one file each, the
 * executor's child script and sql.js's WebAssembly. Every script that bundles a server calls this.
 * Returns the files they were made from.
 */
export async function bundleServerCompanions(esbuild, serverRoot, outDir) {
  const inputs = [];
  const threads = [
    path.join(serverRoot, 'src', 'workers', 'worker-main.ts'),
    path.join(serverRoot, 'src', 'storage', 'metadata-worker.mjs'),
  ];
  for (const entry of threads) {
    const name = `${path.basename(entry).replace(/\.m?[jt]s$/, '')}.mjs`;
    inputs.push(...(await bundleEntry(esbuild, entry, path.join(outDir, name))));
  }
  const childHost = path.join(
    serverRoot,
    '..',
    '..',
    'packages',
    'executor',
    'src',
    'cuda',
    'child-host.mjs',
  );
  copyFileSync(childHost, path.join(outDir, 'child-host.mjs'));
  return [...inputs, childHost, copySqlWasm(serverRoot, outDir)];
}
