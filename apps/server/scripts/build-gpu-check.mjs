// Bundles gpu-serve-check.ts into apps/server/dist/gpu-check/ (git-ignored) for the GPU
// machine, which has Node (from .gpu/) but no node_modules: the bundle, the executor's child
// script and sql.js's WebAssembly. Send it with .gpu/ and native/build/.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBundleOptions } from './node-bundle-options.mjs';

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(serverRoot, 'package.json'));
const esbuild = require('esbuild');
const outDir = path.join(serverRoot, 'dist', 'gpu-check');
mkdirSync(outDir, { recursive: true });
await esbuild.build({
  entryPoints: [path.join(serverRoot, 'scripts', 'gpu-serve-check.ts')],
  ...nodeBundleOptions,
  outfile: path.join(outDir, 'gpu-serve-check.mjs'),
});
const executorRoot = path.join(serverRoot, 'node_modules', '@streamscope', 'executor');
copyFileSync(
  path.join(executorRoot, 'src', 'cuda', 'child-host.mjs'),
  path.join(outDir, 'child-host.mjs'),
);
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join(outDir, 'sql-wasm.wasm'));
console.log(`gpu check: ${path.relative(process.cwd(), outDir)}/gpu-serve-check.mjs`);
