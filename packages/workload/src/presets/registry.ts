import { formatBytes } from '@streamscope/trace';
import { UnitError, parseSize } from '../units.ts';
import type { WorkloadInput } from '../schema.ts';
import { ddpBucketing } from './ddp-bucketing.ts';
import { overlapBlog } from './overlap-blog.ts';
import {
  issueOrder,
  overSync,
  pinnedVsPageable,
  pipeline,
  streamCount,
} from './overlap-lessons.ts';
import type { PresetDefinition, PresetInfo, PresetParam, PresetValue } from './preset-types.ts';
import {
  defaultStream,
  eventsVsDeviceSync,
  graphs,
  mallocInLoop,
  priorities,
} from './sync-lessons.ts';

const definitions: readonly PresetDefinition[] = [
  overlapBlog,
  pipeline,
  issueOrder,
  defaultStream,
  pinnedVsPageable,
  overSync,
  eventsVsDeviceSync,
  priorities,
  mallocInLoop,
  graphs,
  streamCount,
  ddpBucketing,
];

/** Every preset with its parameters (for `--preset`, the lab, the API), described at defaults. */
export const presets: readonly PresetInfo[] = definitions.map(
  ({ name, title, params, pitfallParam }) => ({
    name,
    title,
    description: presetDescription(name),
    params,
    pitfallParam,
  }),
);

/** Thrown by `buildPreset` for an unknown preset, an unknown parameter or a bad value. */
export class PresetError extends Error {
  override readonly name = 'PresetError';
}

/**
 * Builds a preset's workload spec. Values may be typed or text (as `--set NAME=VALUE` gives
 * them); every one is checked against its parameter.
 */
export function buildPreset(
  name: string,
  params: Readonly<Record<string, PresetValue>> = {},
): WorkloadInput {
  const { definition, args } = presetArgs(name, params);
  try {
    return definition.build(args);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new PresetError(error.message);
    }
    throw error;
  }
}

/**
 * What a preset does, with the figures of these parameter values (given or default), as the lab
 * shows it beside the values. Throws PresetError as `buildPreset` does.
 */
export function presetDescription(
  name: string,
  params: Readonly<Record<string, PresetValue>> = {},
): string {
  const { definition, args } = presetArgs(name, params);
  return typeof definition.description === 'string'
    ? definition.description
    : definition.description(args);
}

/**
 * A preset run's title: the preset's, then every parameter's value as run (given or default,
 * sizes in binary units), the pitfall first, so runs of one preset tell apart in lists and in
 * Compare. Throws PresetError as `buildPreset` does.
 */
export function presetRunTitle(
  name: string,
  params: Readonly<Record<string, PresetValue>> = {},
): string {
  const { definition, args } = presetArgs(name, params);
  const pitfall = definition.pitfallParam;
  const ordered = [...definition.params].sort(
    (a, b) => Number(b.name === pitfall) - Number(a.name === pitfall),
  );
  const parts = ordered.map((p) => {
    const value = args[p.name]!;
    if (p.type === 'bool') {
      return value === true ? p.name : `no ${p.name}`;
    }
    return `${p.name} ${p.type === 'size' ? formatBytes(Number(value)) : String(value)}`;
  });
  const title = `${definition.title} (${parts.join(', ')})`;
  return title.length <= 200 ? title : `${title.slice(0, 199)}…`;
}

/** A preset's definition and its parameters' values, each checked and coerced (defaults filled). */
function presetArgs(
  name: string,
  params: Readonly<Record<string, PresetValue>>,
): { definition: PresetDefinition; args: Record<string, number | string | boolean> } {
  const definition = definitions.find((d) => d.name === name);
  if (definition === undefined) {
    throw new PresetError(
      `unknown preset "${name}" (presets: ${definitions.map((d) => d.name).join(', ')})`,
    );
  }
  const args: Record<string, number | string | boolean> = {};
  for (const key of Object.keys(params)) {
    if (!definition.params.some((p) => p.name === key)) {
      throw new PresetError(
        `preset "${name}" has no parameter "${key}" (parameters: ${definition.params.map((p) => p.name).join(', ')})`,
      );
    }
  }
  for (const param of definition.params) {
    args[param.name] = coerce(name, param, params[param.name] ?? param.default);
  }
  return { definition, args };
}

function coerce(preset: string, param: PresetParam, value: PresetValue): number | string | boolean {
  const where = `preset "${preset}" parameter ${param.name}`;
  switch (param.type) {
    case 'bool': {
      if (typeof value === 'boolean') {
        return value;
      }
      if (value === 'true' || value === '1') {
        return true;
      }
      if (value === 'false' || value === '0') {
        return false;
      }
      throw new PresetError(`${where}: expected true or false, got ${JSON.stringify(value)}`);
    }
    case 'enum': {
      const text = String(value);
      if (param.options?.includes(text) !== true) {
        throw new PresetError(
          `${where}: expected one of ${param.options?.join(', ')}, got ${JSON.stringify(value)}`,
        );
      }
      return text;
    }
    case 'size': {
      let bytes: number;
      try {
        bytes = typeof value === 'number' ? value : parseSize(String(value));
      } catch (error) {
        throw new PresetError(
          `${where}: ${error instanceof UnitError ? error.message : String(error)}`,
        );
      }
      return inRange(where, param, bytes, true);
    }
    case 'int':
    case 'number': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && value.trim() !== ''
            ? Number(value)
            : NaN;
      if (!Number.isFinite(n)) {
        throw new PresetError(`${where}: expected a number, got ${JSON.stringify(value)}`);
      }
      return inRange(where, param, n, param.type === 'int');
    }
  }
}

function inRange(where: string, param: PresetParam, n: number, integer: boolean): number {
  if (integer && !Number.isInteger(n)) {
    throw new PresetError(`${where}: expected a whole number, got ${n}`);
  }
  if (param.min !== undefined && n < param.min) {
    throw new PresetError(`${where}: ${n} is below the minimum ${param.min}`);
  }
  if (param.max !== undefined && n > param.max) {
    throw new PresetError(`${where}: ${n} is above the maximum ${param.max}`);
  }
  return n;
}
