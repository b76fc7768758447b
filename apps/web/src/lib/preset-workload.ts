import type { PresetValue, WorkloadInput } from '@streamscope/workload';
import { buildPreset } from '@streamscope/workload';

export interface PresetWorkload {
  readonly workload: WorkloadInput;
  /** What the editor says the text came from: the preset and the parameters it was built with. */
  readonly origin: string;
}

/**
 * A preset's workload spec with the picker's parameters, for the editor. Parameters left empty
 * in the picker take the preset's defaults; bad values throw PresetError with the preset's words.
 */
export function presetWorkload(
  name: string,
  params: Readonly<Record<string, unknown>>,
): PresetWorkload {
  const values = pickerValues(params);
  const workload = buildPreset(name, values);
  const shown = Object.entries(values).map(([key, value]) => `${key}=${String(value)}`);
  return {
    workload,
    origin: shown.length === 0 ? `preset ${name}` : `preset ${name} (${shown.join(', ')})`,
  };
}

/** The picker's values a preset takes; an empty field (undefined) is left to its default. */
export function pickerValues(
  params: Readonly<Record<string, unknown>>,
): Record<string, PresetValue> {
  const values: Record<string, PresetValue> = {};
  for (const [key, value] of Object.entries(params)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      values[key] = value;
    }
  }
  return values;
}
