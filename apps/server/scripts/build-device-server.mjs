// Bundles the server (serve-on-device.ts) and the lessons' GPU check (apps/web/scripts/
// lesson-gpu-check.ts) into native/build/device/ (git-ignored) for the GPU machine, which has
// Node (from .gpu/) but no node_modules; with the server's thread entries, the executor's child
// script and sql.js's WebAssembly. Send native/build/ with .gpu/; scripts/gpu/device-run.sh lessons runs them.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleServerCompanions, nodeBundleOptions } from './node-bundle-options.mjs';

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(serverRoot, '..', '..');
const require = createRequire(path.join(serverRoot, 'package.json'));
const esbuild = require('esbuild');
const outDir = path.join(root, 'native', 'build', 'device');
mkdirSync(outDir, { recursive: true });
await esbuild.build({
  ...nodeBundleOptions,
  entryPoints: [path.join(serverRoot, 'scripts', 'serve-on-device.ts')],
  outfile: path.join(outDir, 'serve-on-device.mjs'),
});
await esbuild.build({
  ...nodeBundleOptions,
  entryPoints: [path.join(root, 'apps', 'web', 'scripts', 'lesson-gpu-check.ts')],
  outfile: path.join(outDir, 'lesson-gpu-check.mjs'),
});
await bundleServerCompanions(esbuild, serverRoot, outDir);
console.log(`device server and lesson check: ${path.relative(process.cwd(), outDir)}/`);
