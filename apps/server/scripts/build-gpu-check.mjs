// Bundles gpu-serve-check.ts into apps/server/dist/gpu-check/ (git-ignored) for the GPU
// machine, which has Node (from .gpu/) but no node_modules: the bundle, the executor's child
// script and sql.js's WebAssembly. Send it with .gpu/ and native/build/.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(serverRoot, 'package.json'));
const esbuild = require('esbuild');
const outDir = path.join(serverRoot, 'dist', 'gpu-check');
mkdirSync(outDir, { recursive: true });
await esbuild.build({
  entryPoints: [path.join(serverRoot, 'scripts', 'gpu-serve-check.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outfile: path.join(outDir, 'gpu-serve-check.mjs'),
  external: ['bufferutil', 'utf-8-validate'],
  // CommonJS dependencies (sql.js, express) expect require and __dirname.
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
});
const executorRoot = path.join(serverRoot, 'node_modules', '@streamscope', 'executor');
copyFileSync(
  path.join(executorRoot, 'src', 'cuda', 'child-host.mjs'),
  path.join(outDir, 'child-host.mjs'),
);
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), path.join(outDir, 'sql-wasm.wasm'));
console.log(`gpu check: ${path.relative(process.cwd(), outDir)}/gpu-serve-check.mjs`);
