import type { PresetInfo, PresetValue } from '@streamscope/workload';
import { PresetError, buildPreset, presets, validateWorkload } from '@streamscope/workload';
import { ApiError } from '../http/api-error.ts';
import type { WorkloadService } from '../http/services.ts';

/**
 * A preset run's title: the preset's, then every parameter's value as run (given or default),
 * the pitfall first, so runs of one preset tell apart in lists and in Compare.
 */
export function presetRunTitle(
  info: PresetInfo,
  values: Readonly<Record<string, PresetValue>>,
): string {
  const ordered = [...info.params].sort(
    (a, b) => Number(b.name === info.pitfallParam) - Number(a.name === info.pitfallParam),
  );
  const parts = ordered.map((p) => {
    const value = values[p.name] ?? p.default;
    return p.type === 'bool'
      ? `${value === true || value === 'true' || value === '1' ? '' : 'no '}${p.name}`
      : `${p.name} ${String(value)}`;
  });
  const title = `${info.title} (${parts.join(', ')})`;
  return title.length <= 200 ? title : `${title.slice(0, 199)}…`;
}

/** The routes' view of @streamscope/workload: validation with JSON paths, presets, building. */
export function workloadService(): WorkloadService {
  return {
    validate(json) {
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
        const workload = buildPreset(name, values);
        return { workload, title: info === undefined ? name : presetRunTitle(info, values) };
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
