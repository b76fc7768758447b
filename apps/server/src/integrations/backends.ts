import type { Backend, BackendName, BackendStatus } from '@streamscope/executor';
import * as executor from '@streamscope/executor';
import type { BackendSet } from '../runs/run-manager.ts';

interface ExecutorExports {
  createBackends?: () => Record<BackendName, Backend>;
  resolveAuto?: (
    backends: Record<BackendName, Backend>,
  ) => Promise<{ backend: Backend; reason: string }>;
}

/** A backend that cannot run, saying why (the executor build on this machine lacks it). */
function missingBackend(name: BackendName, reason: string): Backend {
  const status: BackendStatus = { name, available: false, reason, targets: [] };
  return {
    name,
    status: () => Promise.resolve(status),
    start: () => {
      throw new Error(reason);
    },
  };
}

/**
 * The executor's backends (cuda, sim, replay) and its `auto` rule.
 * TODO(server): import createBackends/resolveAuto directly once @streamscope/executor exports them.
 */
export function executorBackends(): BackendSet {
  const exports = executor as unknown as ExecutorExports;
  if (exports.createBackends === undefined || exports.resolveAuto === undefined) {
    const reason = '@streamscope/executor in this build exports no backends yet';
    const backends = {
      cuda: missingBackend('cuda', reason),
      sim: missingBackend('sim', reason),
      replay: missingBackend('replay', reason),
    };
    return { backends, resolveAuto: () => Promise.resolve({ backend: backends.sim, reason }) };
  }
  const backends = exports.createBackends();
  const resolveAuto = exports.resolveAuto;
  return { backends, resolveAuto: () => resolveAuto(backends) };
}
