import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createBackends, resolveAuto, CudaBackend, SimBackend } from '@streamscope/executor';
import type { DeviceProfile } from '@streamscope/simulator';
import { deviceProfiles } from '@streamscope/simulator';
import { calibratedProfileName, storedCalibration } from '../src/integrations/backends.ts';
import { summarize } from '../src/integrations/trace-tools.ts';
import { workloadService } from '../src/integrations/workload-service.ts';
import { startServer } from '../src/server.ts';

// Runs ON THE GPU MACHINE (bundled by build-device-server.mjs): the real server, cuda when the
// addon and a device answer, on the port given (0: any), until it is killed. Prints
// "listening PORT" once it serves, so a script can wait for that line. With a DATA_DIR holding
// a calibration of this GPU (`calibrate`'s calibration.json), the simulator offers it as "this
// GPU (calibrated)", as `streamscope serve --data DIR` does.
const here = path.dirname(new URL(import.meta.url).pathname);
const port = Number(process.argv[2] ?? '0');
const dataDir =
  process.env['DATA_DIR'] ?? (await mkdtemp(path.join(tmpdir(), 'streamscope-device-')));
const created = createBackends({
  addonPath: path.resolve('native/build/streamscope_native.node'),
  childScript: path.join(here, 'child-host.mjs'),
});
const cuda = created.cuda;
const calibrated =
  cuda instanceof CudaBackend
    ? await storedCalibration(
        dataDir,
        () => cuda.probe(),
        (line) => process.stderr.write(`${line}\n`),
      )
    : undefined;
const extraProfiles: Record<string, DeviceProfile> =
  calibrated === undefined ? {} : { [calibratedProfileName]: calibrated };
const backends = { ...created, sim: new SimBackend({ extraProfiles }) };
const server = await startServer({
  dataDir,
  port,
  backendSet: {
    backends,
    resolveAuto: () => resolveAuto(backends),
    profiles: () => [...Object.values(deviceProfiles), ...Object.values(extraProfiles)],
    ...(cuda instanceof CudaBackend ? { probe: () => cuda.probe() } : {}),
  },
  workloads: workloadService(),
  summarize,
  sqlWasmPath: path.join(here, 'sql-wasm.wasm'),
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`listening ${server.port}\n`);
