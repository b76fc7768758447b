import type { WorkloadInput } from '../schema.ts';

export type PresetParamType = 'int' | 'number' | 'bool' | 'enum' | 'size';
export type PresetValue = string | number | boolean;

/** One knob of a preset, as the CLI (`--set NAME=VALUE`) and the lab UI show it. */
export interface PresetParam {
  readonly name: string;
  readonly type: PresetParamType;
  /** ints and numbers are numbers, bools booleans, enums one of `options`, sizes text ("64MiB"). */
  readonly default: PresetValue;
  readonly min?: number;
  readonly max?: number;
  readonly options?: readonly string[];
  readonly description: string;
}

export interface PresetInfo {
  readonly name: string;
  readonly title: string;
  /**
   * What the preset does. Where the text quotes a parameter's value it is the default's;
   * presetDescription words it for other values.
   */
  readonly description: string;
  readonly params: readonly PresetParam[];
  /** The parameter that flips the scenario between its pitfall and its fix. */
  readonly pitfallParam: string;
}

/** Parameter values after coercion: sizes in bytes, everything checked against its PresetParam. */
export type PresetArgs = Readonly<Record<string, number | string | boolean>>;

export interface PresetDefinition extends Omit<PresetInfo, 'description'> {
  /**
   * A function of the parameters where the text quotes their values ("16 MiB", "4 streams"), so it
   * never states a default after the value was changed.
   */
  readonly description: string | ((args: PresetArgs) => string);
  build(args: PresetArgs): WorkloadInput;
}

export function num(args: PresetArgs, name: string): number {
  const v = args[name];
  if (typeof v !== 'number') {
    throw new Error(`preset parameter ${name} is not a number`);
  }
  return v;
}

export function str(args: PresetArgs, name: string): string {
  const v = args[name];
  if (typeof v !== 'string') {
    throw new Error(`preset parameter ${name} is not text`);
  }
  return v;
}

export function bool(args: PresetArgs, name: string): boolean {
  const v = args[name];
  if (typeof v !== 'boolean') {
    throw new Error(`preset parameter ${name} is not a boolean`);
  }
  return v;
}
