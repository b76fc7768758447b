import { constants } from 'node:fs';
import { access, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where Nsight Systems and the CUDA toolkit put nsys on Linux, searched last: the standalone
 * installer and its CLI-only package, a toolkit's wrapper and the copy of Nsight Systems a
 * toolkit carries, and the copy Nsight Compute carries. A `*` stands for part of one segment
 * (at most one `*` a segment).
 */
export const nsysInstallPatterns: readonly string[] = [
  '/opt/nvidia/nsight-systems/*/bin/nsys',
  '/opt/nvidia/nsight-systems-cli/*/bin/nsys',
  '/usr/local/cuda/bin/nsys',
  '/usr/local/cuda-*/bin/nsys',
  '/usr/local/cuda*/nsight-systems-*/bin/nsys',
  '/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys',
];

/** Where to look for nsys, in this order: the option, NSYS, PATH, the install places. */
export interface NsysLookup {
  /** `--nsys PATH`: used as given, never searched past. */
  readonly optionPath?: string;
  /** The NSYS environment variable: used as given when set, never searched past. */
  readonly envPath?: string;
  /** The PATH environment variable's value. */
  readonly searchPath?: string;
  /** Install places (default nsysInstallPatterns): the newest nsys among them is taken. */
  readonly installPatterns?: readonly string[];
}

export type NsysLocation =
  | { readonly found: true; readonly path: string; readonly via: string }
  | {
      readonly found: false;
      /** What was searched, in order, for the message: "NSYS (not set)", "PATH", a pattern. */
      readonly looked: readonly string[];
      /** An option or NSYS that names no usable nsys: said instead of searching on. */
      readonly unusable?: string;
    };

/** Finds the nsys an import runs: the first of the lookup's places that has one. */
export async function locateNsys(lookup: NsysLookup): Promise<NsysLocation> {
  const looked: string[] = [];
  for (const [value, via] of [
    [lookup.optionPath, '--nsys'],
    [lookup.envPath, 'NSYS'],
  ] as const) {
    // An empty NSYS is unset, as a shell has it; an empty --nsys is a mistake, said.
    if (value === undefined || (value === '' && via === 'NSYS')) {
      looked.push(`${via} (not ${via === 'NSYS' ? 'set' : 'given'})`);
      continue;
    }
    const named = await namedNsys(value, lookup.searchPath);
    if (named.problem !== undefined) {
      return {
        found: false,
        looked: [...looked, via],
        unusable: `${via} ${value}: ${named.problem}`,
      };
    }
    return { found: true, path: named.path, via };
  }
  const onPath = await onSearchPath('nsys', lookup.searchPath);
  looked.push('PATH');
  if (onPath !== undefined) {
    return { found: true, path: onPath, via: 'PATH' };
  }
  const patterns = lookup.installPatterns ?? nsysInstallPatterns;
  const installed = await newestInstalled(patterns);
  if (installed !== undefined) {
    return { found: true, ...installed };
  }
  return { found: false, looked: [...looked, ...patterns] };
}

/**
 * Why `value` (an option's or NSYS's) names no runnable file, or undefined when it does. A
 * value without a slash is a command name, looked up on PATH.
 */
export async function nsysPathProblem(
  value: string,
  searchPath?: string,
): Promise<string | undefined> {
  return (await namedNsys(value, searchPath)).problem;
}

async function namedNsys(
  value: string,
  searchPath: string | undefined,
): Promise<{ readonly path: string; readonly problem?: string }> {
  if (value === '') {
    return { path: value, problem: 'empty' };
  }
  if (!value.includes('/') && !value.includes(path.sep)) {
    const onPath = await onSearchPath(value, searchPath);
    return onPath === undefined ? { path: value, problem: 'not found on PATH' } : { path: onPath };
  }
  const absolute = path.resolve(value);
  const problem = await executableProblem(absolute);
  return problem === undefined ? { path: absolute } : { path: absolute, problem };
}

async function onSearchPath(
  name: string,
  searchPath: string | undefined,
): Promise<string | undefined> {
  // An empty entry means the working folder: never searched, as a shell would not be trusted to.
  const dirs = (searchPath ?? '').split(path.delimiter).filter((dir) => path.isAbsolute(dir));
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    if ((await executableProblem(candidate)) === undefined) {
      return candidate;
    }
  }
  return undefined;
}

async function executableProblem(file: string): Promise<string | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (info === undefined) {
    return 'no such file';
  }
  if (!info.isFile()) {
    return 'not a file';
  }
  return access(file, constants.X_OK).then(
    () => undefined,
    () => 'not executable',
  );
}

/**
 * The newest nsys of the install places. Newest by the last version in its real path: a
 * standalone Nsight Systems (/opt/nvidia/nsight-systems/2025.3.1) and a toolkit's own copy
 * (cuda-12.8/nsight-systems-2024.6.2/…) both say nsys's version there; a toolkit's wrapper that
 * says only the toolkit's (12.8) ranks below any Nsight Systems year, and Nsight Compute's copy
 * below all (its path says Compute's version, not nsys's). Equal versions keep the
 * patterns' order; one file reached twice (/usr/local/cuda is a link) counts once.
 */
async function newestInstalled(
  patterns: readonly string[],
): Promise<{ readonly path: string; readonly via: string } | undefined> {
  let best: { path: string; via: string; version: readonly number[] } | undefined;
  const seen = new Set<string>();
  for (const pattern of patterns) {
    for (const candidate of await expandPattern(pattern)) {
      if ((await executableProblem(candidate)) !== undefined) {
        continue;
      }
      const real = await realpath(candidate).catch(() => candidate);
      if (seen.has(real)) {
        continue;
      }
      seen.add(real);
      const version = nsysVersionOfPath(real);
      if (best === undefined || compareVersions(version, best.version) > 0) {
        best = { path: candidate, via: pattern, version };
      }
    }
  }
  return best === undefined ? undefined : { path: best.path, via: best.via };
}

/** The paths a pattern names that exist, a `*` standing for part of one segment. */
async function expandPattern(pattern: string): Promise<string[]> {
  const star = pattern.indexOf('*');
  if (star < 0) {
    return [pattern];
  }
  const segmentStart = pattern.lastIndexOf('/', star) + 1;
  const segmentEnd = pattern.indexOf('/', star);
  const parent = pattern.slice(0, segmentStart);
  const segment = pattern.slice(segmentStart, segmentEnd < 0 ? undefined : segmentEnd);
  const rest = segmentEnd < 0 ? '' : pattern.slice(segmentEnd);
  const [prefix = '', suffix = ''] = segment.split('*');
  const names = await readdir(parent).catch(() => [] as string[]);
  const expanded: string[] = [];
  for (const n of names.sort()) {
    if (n.length >= prefix.length + suffix.length && n.startsWith(prefix) && n.endsWith(suffix)) {
      // A later segment's `*` in turn.
      expanded.push(...(await expandPattern(`${parent}${n}${rest}`)));
    }
  }
  return expanded;
}

/**
 * The version an install's path says of its nsys: [] (below any) for the copy Nsight Compute
 * carries, whose path says Nsight Compute's version (2025.3.0), not that of the nsys inside.
 */
function nsysVersionOfPath(file: string): readonly number[] {
  return file.split('/').some((segment) => segment.startsWith('nsight-compute'))
    ? []
    : lastVersionIn(file);
}

/** [2025, 3, 1] from "/opt/nvidia/nsight-systems/2025.3.1/bin/nsys"; [] when none. */
function lastVersionIn(file: string): readonly number[] {
  const versions = file.match(/\d+(?:\.\d+)+/g);
  const last = versions?.[versions.length - 1];
  return last === undefined ? [] : last.split('.').map(Number);
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) {
      return d;
    }
  }
  return 0;
}
