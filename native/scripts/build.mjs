// Builds the addon with nvcc (kernels) and g++ (everything else) into native/build/.
// `--optional` (the install script) never fails: without nvcc, or when the build breaks, it
// writes build/status.json saying why and exits 0, so `pnpm install` works on machines without
// CUDA and the simulator serves. STREAMSCOPE_NATIVE_REQUIRED=1 turns that into a failure (CI).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { buildInputsDigest } from './build-inputs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = path.join(root, 'build');
const objDir = path.join(buildDir, 'obj');
const output = path.join(buildDir, 'streamscope_native.node');
// The injection collector (`streamscope profile`): CUDA_INJECTION64_PATH loads it into any CUDA
// program. It shares the CUPTI session, record sink and codec writer with the addon.
const injectOutput = path.join(buildDir, 'libstreamscope_inject.so');
const checkOutput = path.join(buildDir, 'streamscope-inject-check');
const sharedCore = new Set([
  'clock.cc',
  'codec-writer.cc',
  'cupti-api.cc',
  'cupti-profile.cc',
  'cupti-session.cc',
  'demangle.cc',
  'record-sink.cc',
  'wait-linker.cc',
]);
const optional = process.argv.includes('--optional');
const required = process.env.STREAMSCOPE_NATIVE_REQUIRED === '1';
const stepTimeoutMs = 300_000; // one compile step; a hung compiler must not hang `pnpm install`
const napiVersion = 8;

function status(built, reason, inputsDigest) {
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(
    path.join(buildDir, 'status.json'),
    JSON.stringify({ built, reason, ...(inputsDigest ? { inputsDigest } : {}) }, null, 2) + '\n',
  );
}

/** The digest of the last successful build, or undefined. */
function lastBuiltDigest() {
  try {
    const last = JSON.parse(readFileSync(path.join(buildDir, 'status.json'), 'utf8'));
    return last.built === true ? last.inputsDigest : undefined;
  } catch {
    return undefined;
  }
}

function giveUp(reason) {
  // A stale addon or collector must not outlive a failed build.
  for (const file of [output, injectOutput, checkOutput]) {
    rmSync(file, { force: true });
  }
  status(false, reason);
  console.error(`streamscope native addon not built: ${reason}`);
  console.error('the CUDA backend is unavailable; the simulator and replay backends still work');
  process.exit(optional && !required ? 0 : 1);
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: stepTimeoutMs });
  if (r.error !== undefined || r.status !== 0) {
    const why = r.error?.message ?? `${cmd} exited with ${r.status}`;
    giveUp(`${why}\n${(r.stderr ?? '').slice(-4000)}`);
  }
  if (r.stderr.trim() !== '') {
    process.stderr.write(r.stderr); // warnings
  }
  return r.stdout;
}

function findNvcc() {
  const candidates = [];
  if (process.env.CUDA_HOME) {
    candidates.push(path.join(process.env.CUDA_HOME, 'bin', 'nvcc'));
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir !== '') {
      candidates.push(path.join(dir, 'nvcc'));
    }
  }
  return candidates.find((c) => existsSync(c));
}

const nvcc = findNvcc();
if (nvcc === undefined) {
  giveUp('nvcc not found (set CUDA_HOME or put nvcc on PATH)');
}
// nvcc reports its toolkit root as TOP in a dry run; no guessing of install locations.
const dry = spawnSync(nvcc, ['--dryrun', '-x', 'cu', '-c', '-o', '/dev/null', '/dev/null'], {
  encoding: 'utf8',
  timeout: 60_000,
});
const top = /#\$ TOP=(.*)/.exec(`${dry.stdout}${dry.stderr}`)?.[1]?.trim();
if (top === undefined) {
  giveUp(`cannot find the CUDA toolkit root from ${nvcc} --dryrun`);
}
const cudaInclude = path.join(top, 'include');
const cuptiInclude = [path.join(top, 'include'), path.join(top, 'extras', 'CUPTI', 'include')].find(
  (d) => existsSync(path.join(d, 'cupti.h')),
);
if (cuptiInclude === undefined) {
  giveUp('CUPTI headers (cupti.h) not found in the CUDA toolkit');
}
const cudaLib = ['lib64', 'lib', path.join('targets', 'x86_64-linux', 'lib')]
  .map((d) => path.join(top, d))
  .find((d) => existsSync(path.join(d, 'libcudart_static.a')));
if (cudaLib === undefined) {
  giveUp('libcudart_static.a not found in the CUDA toolkit');
}
const nodeInclude = [
  path.join(path.dirname(process.execPath), '..', 'include', 'node'),
  path.join(process.config.variables.node_prefix ?? '', 'include', 'node'),
].find((d) => existsSync(path.join(d, 'node_api.h')));
if (nodeInclude === undefined) {
  giveUp('Node.js headers (node_api.h) not found next to this node binary');
}
const addonApi = createRequire(path.join(root, 'package.json'))('node-addon-api');
const includes = [
  addonApi.include_dir ?? addonApi.include.replaceAll('"', ''),
  nodeInclude,
  cudaInclude,
  cuptiInclude,
];

const src = path.join(root, 'src');
const inputsDigest = buildInputsDigest(src, fileURLToPath(import.meta.url), [
  nvcc,
  top,
  nodeInclude,
  process.version,
  process.versions.modules,
  napiVersion,
  ...includes,
]);
if (
  !process.argv.includes('--force') &&
  lastBuiltDigest() === inputsDigest &&
  [output, injectOutput, checkOutput].every((file) => existsSync(file))
) {
  console.log(
    'streamscope native addon up to date (sources and toolchain unchanged; --force rebuilds)',
  );
  process.exit(0);
}
mkdirSync(objDir, { recursive: true });
const objects = [];
const injectObjects = [];
const toolObjects = [];
for (const file of readdirSync(src).sort()) {
  const obj = path.join(objDir, file.replace(/\.(cc|cu)$/, '.o'));
  if (file.endsWith('.cu')) {
    run(nvcc, [
      '-std=c++17',
      '-O2',
      '-Xcompiler',
      '-fPIC,-fvisibility=hidden',
      '-gencode',
      'arch=compute_90,code=sm_90',
      '-gencode',
      'arch=compute_90,code=compute_90',
      '-c',
      path.join(src, file),
      '-o',
      obj,
    ]);
  } else if (file.endsWith('.cc')) {
    run('g++', [
      '-std=c++17',
      '-O2',
      '-fPIC',
      '-fvisibility=hidden',
      '-Wall',
      '-Wextra',
      `-DNAPI_VERSION=${napiVersion}`,
      '-DNAPI_CPP_EXCEPTIONS',
      '-DNODE_ADDON_API_DISABLE_DEPRECATED',
      ...includes.map((d) => `-I${d}`),
      '-c',
      path.join(src, file),
      '-o',
      obj,
    ]);
  } else {
    continue;
  }
  if (file.startsWith('tool-')) {
    toolObjects.push(obj);
    continue;
  }
  if (sharedCore.has(file) || file.startsWith('inject-')) {
    injectObjects.push(obj);
  }
  if (!file.startsWith('inject-')) {
    objects.push(obj);
  }
}
// g++ links, so the static CUDA runtime is named explicitly; libcuda (the driver) is loaded by
// cudart at run time and CUPTI by us with dlopen, so the addon loads on machines without either.
run('g++', [
  '-shared',
  '-o',
  output,
  ...objects,
  `-L${cudaLib}`,
  '-lcudart_static',
  '-ldl',
  '-lrt',
  '-lpthread',
  '-Wl,--exclude-libs,ALL',
]);
// The collector lives inside someone else's program: libstdc++ is linked in and hidden (the
// program may carry an older one), nothing but its entry points is exported, and `-z defs`
// proves at build time that it needs nothing the program might lack (CUPTI comes by dlopen).
const exportsMap = path.join(objDir, 'inject.map');
writeFileSync(
  exportsMap,
  '{ global: InitializeInjection; InitializeInjectionNvtx2; StreamscopeInjectSelfTest; local: *; };\n',
);
run('g++', [
  '-shared',
  '-o',
  injectOutput,
  `-Wl,--version-script=${exportsMap}`,
  '-Wl,-Bsymbolic',
  ...injectObjects,
  '-static-libstdc++',
  '-static-libgcc',
  '-ldl',
  '-lpthread',
  '-Wl,--exclude-libs,ALL',
  '-Wl,-z,defs',
]);
run('g++', ['-o', checkOutput, ...toolObjects, '-ldl']);
status(true, '', inputsDigest);
console.log(`streamscope native addon built: ${path.relative(process.cwd(), output)}`);
console.log(`streamscope injection collector built: ${path.relative(process.cwd(), injectOutput)}`);
