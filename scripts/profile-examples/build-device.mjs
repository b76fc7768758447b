// Puts what `device-run.sh` needs on the GPU machine (which has Node from .gpu/ but no
// node_modules) into one folder: the CLI and the server bundled into single files, the live
// latency client, sql.js's WebAssembly, the injection collector, the examples (the C++ one
// built here with nvcc) and the nsys statistics script.
//   node scripts/profile-examples/build-device.mjs OUT_DIR
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const server = path.join(root, 'apps', 'server');
const require = createRequire(path.join(server, 'package.json'));
const esbuild = require('esbuild');
const { bundleServerCompanions, nodeBundleOptions } = await import(
  path.join(server, 'scripts', 'node-bundle-options.mjs')
);
const out = path.resolve(process.argv[2] ?? '.gpuprof');
mkdirSync(out, { recursive: true });

const bundles = {
  'cli.mjs': path.join(server, 'src', 'cli', 'main.ts'),
  'serve-on-device.mjs': path.join(server, 'scripts', 'serve-on-device.ts'),
  'profile-latency.mjs': path.join(server, 'scripts', 'profile-latency.ts'),
  'profile-bench.mjs': path.join(root, 'scripts', 'bench', 'profile-device-main.ts'),
};
for (const [name, entry] of Object.entries(bundles)) {
  await esbuild.build({
    ...nodeBundleOptions,
    entryPoints: [entry],
    outfile: path.join(out, name),
  });
}
await bundleServerCompanions(esbuild, server, out);
copyFileSync(
  path.join(root, 'native', 'build', 'libstreamscope_inject.so'),
  path.join(out, 'libstreamscope_inject.so'),
);
for (const file of ['torch_streams.py', 'fork_after_cuda.py', 'nsys_stats.py', 'device-run.sh']) {
  copyFileSync(path.join(here, file), path.join(out, file));
}
for (const program of ['multi_thread', 'per_call']) {
  const nvcc = spawnSync(
    'nvcc',
    [
      '-O2',
      '-std=c++17',
      '-arch=sm_90',
      '-o',
      path.join(out, program),
      path.join(here, `${program}.cu`),
    ],
    { stdio: 'inherit' },
  );
  if (nvcc.status !== 0) {
    process.exit(1);
  }
}
console.log(`device files: ${out}`);
