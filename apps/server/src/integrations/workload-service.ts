import type { PresetValue } from '@streamscope/workload';
import {
  PresetError,
  buildPreset,
  presetRunTitle,
  presets,
  validateWorkload,
} from '@streamscope/workload';
import { ApiError } from '../http/api-error.ts';
import type { WorkloadService } from '../http/services.ts';
import type { ServerWorkers } from '../workers/server-workers.ts';

/**
 * The routes' view of @streamscope/workload: validation with JSON paths, presets, building.
 * Given workers, a spec is expanded in one of them (a valid spec may expand to 2M ops); without,
 * on the calling thread (single-file bundles that ship no worker entry).
 */
export function workloadService(workers?: ServerWorkers): WorkloadService {
  return {
    validate(json) {
      if (workers !== undefined) {
        return workers.validateWorkload(json);
      }
      const result = validateWorkload(json);
      return result.ok ? { ok: true } : { ok: false, errors: result.errors };
    },
    presets: () => presets,
    build(name, params) {
      for (const [key, value] of Object.entries(params)) {
        if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
          throw new ApiError(
            400,
            'bad-request',
            'preset parameters are strings, numbers or booleans',
            `$.params.${key}`,
          );
        }
      }
      const info = presets.find((p) => p.name === name);
      try {
        const values = params as Record<string, PresetValue>;
        return { workload: buildPreset(name, values), title: presetRunTitle(name, values) };
      } catch (error) {
        if (error instanceof PresetError) {
          throw new ApiError(
            422,
            'invalid-preset',
            error.message,
            info === undefined ? '$.preset' : '$.params',
          );
        }
        throw error;
      }
    },
  };
}
