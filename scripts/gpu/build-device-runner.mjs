// Bundles the device runner into native/build/device/ (git-ignored) for the GPU machine, which
// has Node (from .gpu/) but no node_modules: device-main.mjs, the lessons' fidelity check
// (apps/web/scripts/lesson-fidelity.ts, which device-run.sh fidelity runs against the server
// that apps/server/scripts/build-device-server.mjs bundles) and the executor's child script.
// An argument names another folder (the addon is then looked for in its parent folder).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// esbuild is a dev dependency of apps/server (its production bundle); reuse that one.
const esbuild = createRequire(path.join(root, 'apps', 'server', 'package.json'))('esbuild');
const outDir = path.resolve(process.argv[2] ?? path.join(root, 'native', 'build', 'device'));
mkdirSync(outDir, { recursive: true });
await esbuild.build({
  entryPoints: [path.join(root, 'scripts', 'gpu', 'device-main.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outfile: path.join(outDir, 'device-main.mjs'),
  logLevel: 'warning',
});
await esbuild.build({
  entryPoints: [path.join(root, 'scripts', 'gpu', 'collectives-main.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outfile: path.join(outDir, 'collectives-main.mjs'),
  logLevel: 'warning',
});
await esbuild.build({
  entryPoints: [path.join(root, 'apps', 'web', 'scripts', 'lesson-fidelity.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outfile: path.join(outDir, 'lesson-fidelity.mjs'),
  logLevel: 'warning',
});
copyFileSync(
  path.join(root, 'packages', 'executor', 'src', 'cuda', 'child-host.mjs'),
  path.join(outDir, 'child-host.mjs'),
);
console.log(`device runner: ${path.relative(process.cwd(), outDir)}/device-main.mjs`);
