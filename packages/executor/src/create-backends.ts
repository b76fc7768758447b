import type { Backend, BackendName } from './backend.ts';
import { defaultAddonPath } from './cuda/addon-path.ts';
import { CudaBackend } from './cuda/cuda-backend.ts';
import { ReplayBackend } from './replay-backend.ts';
import type { SimBackendOptions } from './sim-backend.ts';
import { SimBackend } from './sim-backend.ts';

export interface BackendOptions extends SimBackendOptions {
  /** The built addon (native/build/streamscope_native.node in this repository by default). */
  readonly addonPath?: string;
  /** The executor child script (bundles that move it pass its new place). */
  readonly childScript?: string;
}

/** One of each backend. Nothing loads CUDA here: the cuda backend probes in a child process. */
export function createBackends(options: BackendOptions = {}): Record<BackendName, Backend> {
  return {
    cuda: new CudaBackend({
      addonPath: options.addonPath ?? defaultAddonPath,
      ...(options.childScript !== undefined ? { childScript: options.childScript } : {}),
    }),
    sim: new SimBackend(options),
    replay: new ReplayBackend(),
  };
}

/** `auto`: cuda when a GPU is there, else the simulator; says which and why. */
export async function resolveAuto(
  backends: Record<BackendName, Backend>,
): Promise<{ backend: Backend; reason: string }> {
  const cuda = await backends.cuda.status();
  if (cuda.available) {
    return { backend: backends.cuda, reason: `GPU found (${cuda.targets.join(', ')}): using cuda` };
  }
  return {
    backend: backends.sim,
    reason: `no GPU run possible (${cuda.reason ?? 'unknown reason'}): using the simulator`,
  };
}
