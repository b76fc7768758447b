import { UsageError } from './command.ts';

export interface FlagSpec {
  /** Flags that take a value (`--out FILE` or `--out=FILE`). Repeatable ones collect all values. */
  readonly values?: readonly string[];
  /** Flags that are switches (`--summary`). */
  readonly switches?: readonly string[];
  /** Value flags that may repeat (`--set A=1 --set B=2`). */
  readonly repeatable?: readonly string[];
}

export interface ParsedFlags {
  readonly positional: string[];
  readonly values: Map<string, string[]>;
  readonly switches: Set<string>;
}

/** Parses `--flag value`, `--flag=value` and switches; unknown flags are usage errors. */
export function parseFlags(args: readonly string[], spec: FlagSpec): ParsedFlags {
  const valueFlags = new Set(spec.values ?? []);
  const switchFlags = new Set(spec.switches ?? []);
  const repeatable = new Set(spec.repeatable ?? []);
  const parsed: ParsedFlags = { positional: [], values: new Map(), switches: new Set() };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      parsed.positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      parsed.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    if (switchFlags.has(name)) {
      if (eq >= 0) {
        throw new UsageError(`--${name} takes no value`);
      }
      parsed.switches.add(name);
      continue;
    }
    if (!valueFlags.has(name) && !repeatable.has(name)) {
      throw new UsageError(`unknown flag --${name}`);
    }
    let value: string | undefined;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      value = args[i + 1];
      i++;
    }
    if (value === undefined || (eq < 0 && value.startsWith('--'))) {
      throw new UsageError(`--${name} needs a value`);
    }
    const existing = parsed.values.get(name);
    if (existing !== undefined && !repeatable.has(name)) {
      throw new UsageError(`--${name} given more than once`);
    }
    parsed.values.set(name, [...(existing ?? []), value]);
  }
  return parsed;
}

export function oneValue(flags: ParsedFlags, name: string): string | undefined {
  return flags.values.get(name)?.[0];
}

/** A value flag that must parse as a positive integer. */
export function intValue(
  flags: ParsedFlags,
  name: string,
  min = 1,
  max = 2 ** 31,
): number | undefined {
  const raw = oneValue(flags, name);
  if (raw === undefined) {
    return undefined;
  }
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer in [${min}, ${max}], got '${raw}'`);
  }
  return value;
}
