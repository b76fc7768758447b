import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Backend, ProbeReport } from '@streamscope/executor';
import {
  CudaBackend,
  SimBackend,
  createBackends,
  defaultAddonPath,
  resolveAuto,
} from '@streamscope/executor';
import type { DeviceProfile } from '@streamscope/simulator';
import { deviceProfiles, profileFromCalibration } from '@streamscope/simulator';
import type { BackendSet } from '../runs/run-manager.ts';
import { SimThreadBackend } from '../runs/sim-thread-backend.ts';
import { sharedWorkers } from '../workers/server-workers.ts';
import type { WorkerPool } from '../workers/worker-pool.ts';

/** The simulator profile of this machine's GPU, as the Run page lists it. */
export const calibratedProfileName = 'this GPU (calibrated)';

/**
 * The calibration `streamscope calibrate` stored in `dataDir`, as a profile, when this machine
 * has the GPU it measured; undefined otherwise (no file, another GPU, no GPU). A file that does
 * not load is reported through `warn`, not fatal.
 */
export async function storedCalibration(
  dataDir: string,
  probe: () => Promise<ProbeReport>,
  warn: (line: string) => void = () => undefined,
): Promise<DeviceProfile | undefined> {
  const file = path.join(dataDir, 'calibration.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let profile: DeviceProfile;
  try {
    profile = profileFromCalibration(JSON.parse(text) as unknown);
  } catch (error) {
    warn(`${file}: ${(error as Error).message}; not offered as a profile`);
    return undefined;
  }
  const report = await probe();
  const here = report.cuda?.devices.some((d) => d.name === profile.device.name) ?? false;
  return here ? { ...profile, name: calibratedProfileName } : undefined;
}

/**
 * The executor's backends (cuda in a child process, sim, replay), its `auto` rule, the CUDA
 * probe and the simulator's device profiles; with `calibrated`, the simulator also offers it
 * as "this GPU (calibrated)". Simulator runs are validated, expanded and simulated on a thread
 * of `pool` (the shared pool by default), never on the event loop.
 */
export function executorBackends(
  calibrated?: DeviceProfile,
  pool: WorkerPool = sharedWorkers().pool,
): BackendSet {
  const extraProfiles: Record<string, DeviceProfile> =
    calibrated === undefined ? {} : { [calibratedProfileName]: calibrated };
  const created = createBackends({ extraProfiles });
  const sim = created.sim;
  const backends =
    sim instanceof SimBackend ? { ...created, sim: new SimThreadBackend(sim, pool) } : created;
  const cuda: Backend = backends.cuda;
  return {
    backends,
    resolveAuto: () => resolveAuto(backends),
    profiles: () => [...Object.values(deviceProfiles), ...Object.values(extraProfiles)],
    ...(cuda instanceof CudaBackend ? { probe: () => cuda.probe() } : {}),
  };
}

/** The executor's backends, offering the calibration stored in `dataDir` when it fits this GPU. */
export async function executorBackendsFor(
  dataDir: string,
  warn: (line: string) => void,
): Promise<BackendSet> {
  const probe = new CudaBackend({ addonPath: defaultAddonPath });
  return executorBackends(await storedCalibration(dataDir, () => probe.probe(), warn));
}
