import type { Backend } from '@streamscope/executor';
import { CudaBackend, createBackends, resolveAuto } from '@streamscope/executor';
import { deviceProfiles } from '@streamscope/simulator';
import type { BackendSet } from '../runs/run-manager.ts';

/**
 * The executor's backends (cuda in a child process, sim, replay), its `auto` rule, the CUDA
 * probe and the simulator's device profiles.
 */
export function executorBackends(): BackendSet {
  const backends = createBackends();
  const cuda: Backend = backends.cuda;
  return {
    backends,
    resolveAuto: () => resolveAuto(backends),
    profiles: () => Object.values(deviceProfiles),
    ...(cuda instanceof CudaBackend ? { probe: () => cuda.probe() } : {}),
  };
}
