import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createBackends, resolveAuto, CudaBackend } from '@streamscope/executor';
import { deviceProfiles } from '@streamscope/simulator';
import { summarize } from '../src/integrations/trace-tools.ts';
import { workloadService } from '../src/integrations/workload-service.ts';
import { startServer } from '../src/server.ts';

// Runs ON THE GPU MACHINE (bundled by build-device-server.mjs): the real server, cuda when the
// addon and a device answer, on the port given (0: any), until it is killed. Prints
// "listening PORT" once it serves, so a script can wait for that line.
const here = path.dirname(new URL(import.meta.url).pathname);
const port = Number(process.argv[2] ?? '0');
const backends = createBackends({
  addonPath: path.resolve('native/build/streamscope_native.node'),
  childScript: path.join(here, 'child-host.mjs'),
});
const cuda = backends.cuda;
const server = await startServer({
  dataDir: await mkdtemp(path.join(tmpdir(), 'streamscope-device-')),
  port,
  backendSet: {
    backends,
    resolveAuto: () => resolveAuto(backends),
    profiles: () => Object.values(deviceProfiles),
    ...(cuda instanceof CudaBackend ? { probe: () => cuda.probe() } : {}),
  },
  workloads: workloadService(),
  summarize,
  sqlWasmPath: path.join(here, 'sql-wasm.wasm'),
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`listening ${server.port}\n`);
