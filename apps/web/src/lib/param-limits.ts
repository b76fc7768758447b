import { UnitError, parseSize } from '@streamscope/workload';
import type { Preset, PresetParam } from '../api/types.ts';

const binaryUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** Bytes in the largest binary unit that keeps the number ≥ 1: 8589934592 → "8 GiB". */
export function formatBytesHuman(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < binaryUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number(value.toPrecision(4))} ${binaryUnits[unit]}`;
}

/** µs as a person reads a duration: 1000000 → "1 s", 2000 → "2 ms". */
function formatMicros(us: number): string {
  if (Math.abs(us) >= 1e6) {
    return `${Number((us / 1e6).toPrecision(4))} s`;
  }
  if (Math.abs(us) >= 1e3) {
    return `${Number((us / 1e3).toPrecision(4))} ms`;
  }
  return `${us} µs`;
}

/** A limit in the parameter's own units: sizes in binary units, `…Us` parameters as durations. */
function formatLimit(param: PresetParam, n: number): string {
  if (param.type === 'size') {
    return formatBytesHuman(n);
  }
  if (/Us$/.test(param.name)) {
    return formatMicros(n);
  }
  return n.toLocaleString('en-US');
}

/** What is wrong with one parameter's value, in the words the form shows; undefined when fine. */
export function paramProblem(param: PresetParam, value: unknown): string | undefined {
  if (param.type === 'boolean' || param.type === 'bool') {
    return undefined;
  }
  if (param.options.length > 0) {
    return param.options.includes(String(value)) ? undefined : `one of ${param.options.join(', ')}`;
  }
  let n: number;
  if (param.type === 'size') {
    if (typeof value === 'number') {
      n = value;
    } else if (typeof value === 'string' && value.trim() !== '') {
      try {
        n = parseSize(value);
      } catch (error) {
        return error instanceof UnitError ? error.message : String(error);
      }
    } else {
      return 'a size is needed, e.g. 64MiB';
    }
  } else {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return 'a number is needed';
    }
    n = value;
  }
  const whole = param.type === 'int' || param.type === 'integer' || param.type === 'size';
  if (whole && !Number.isInteger(n)) {
    return 'a whole number is needed';
  }
  if (param.min !== undefined && n < param.min) {
    return `at least ${formatLimit(param, param.min)}`;
  }
  if (param.max !== undefined && n > param.max) {
    return `at most ${formatLimit(param, param.max)}`;
  }
  return undefined;
}

/** Every parameter's problem at once, by parameter name (empty when the form can run). */
export function presetProblems(
  preset: Preset | undefined,
  params: Readonly<Record<string, unknown>>,
): Readonly<Record<string, string>> {
  const problems: Record<string, string> = {};
  for (const param of preset?.params ?? []) {
    const problem = paramProblem(param, params[param.name] ?? param.default);
    if (problem !== undefined) {
      problems[param.name] = problem;
    }
  }
  return problems;
}

/** The limits of a parameter as a hint beside its field ("1 – 256", "4 KiB – 8 GiB"). */
export function paramRange(param: PresetParam): string | undefined {
  if (param.min === undefined && param.max === undefined) {
    return undefined;
  }
  const low = param.min === undefined ? '' : formatLimit(param, param.min);
  const high = param.max === undefined ? '' : formatLimit(param, param.max);
  return `${low} – ${high}`;
}
