import type { Backend } from '@streamscope/executor';
import { ApiError } from '../http/api-error.ts';

/** A target must name one of the backend's: a device ordinal (cuda) or a profile (sim). */
export async function checkTarget(backend: Backend, target: string): Promise<void> {
  const { targets } = await backend.status();
  if (backend.name === 'cuda') {
    const ordinal = Number(target);
    if (!/^\d+$/.test(target) || ordinal >= targets.length) {
      throw new ApiError(
        422,
        'bad-target',
        `target '${target}' is not a device ordinal of this machine (devices: ${targets.join('; ') || 'none'})`,
        '$.target',
      );
    }
    return;
  }
  if (targets.length > 0 && !targets.includes(target)) {
    throw new ApiError(
      422,
      'bad-target',
      `target '${target}' is not one of backend ${backend.name}'s: ${targets.join(', ')}`,
      '$.target',
    );
  }
}
