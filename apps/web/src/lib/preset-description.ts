import { PresetError, presetDescription } from '@streamscope/workload';
import type { Preset } from '../api/types.ts';
import { pickerValues } from './preset-workload.ts';

export interface ShownDescription {
  readonly text: string;
  /** The text quotes the defaults' figures, not the values set (one of them is not valid yet). */
  readonly atDefaults: boolean;
}

/**
 * A preset's description as the picker shows it: with the figures of the values set ("64 MiB of
 * pinned floats", "96 buckets of 4 MiB"), so it never repeats a default the user changed. While a
 * value is not valid, the list's text, which quotes the defaults, and says so.
 */
export function shownPresetDescription(
  preset: Preset,
  params: Readonly<Record<string, unknown>>,
): ShownDescription {
  try {
    return { text: presetDescription(preset.name, pickerValues(params)), atDefaults: false };
  } catch (error) {
    if (error instanceof PresetError) {
      return { text: preset.description, atDefaults: true };
    }
    throw error;
  }
}
