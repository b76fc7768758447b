import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServe } from '../../scripts/serve-process.mjs';
import { cliAllocatorEnv } from '../cli/allocator-env.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** `pnpm streamscope serve` as its own process: what a user runs, killable with SIGKILL. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly base: string;
  readonly port: number;
  /** Everything the server wrote to stderr so far (its log). */
  stderr(): string;
  /** Peak resident memory of the server process so far, in MiB (Linux /proc VmHWM). */
  peakRssMiB(): Promise<number>;
  /** Resident memory now, in MiB (VmRSS). */
  rssMiB(): Promise<number>;
  /** SIGKILL: no handler runs, nothing is flushed. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<number | null>;
}

/** Starts the CLI's `serve` on 127.0.0.1, a free port and `dataDir`; resolves once it listens. */
export async function startServerProcess(
  dataDir: string,
  extraArgs: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<ServerProcess> {
  const { child, base, stderr, exited } = await spawnServe({
    cwd: repoRoot,
    node: ['--import', 'tsx', 'apps/server/src/cli/main.ts'],
    dataDir,
    args: extraArgs,
    env: { ...cliAllocatorEnv, ...env },
  });
  const pid = child.pid ?? 0;
  const statusField = async (field: string): Promise<number> => {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return Number(match?.[1] ?? NaN) / 1024;
  };
  return {
    child,
    pid,
    base,
    port: Number(new URL(base).port),
    stderr,
    peakRssMiB: () => statusField('VmHWM'),
    rssMiB: () => statusField('VmRSS'),
    async kill9() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
