import { fileURLToPath } from 'node:url';
import { spawnServe } from '../apps/server/scripts/serve-process.mjs';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** A dashboard server of its own, started as the README starts it (`pnpm streamscope serve`). */
export interface ServerProcess {
  readonly base: string;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `streamscope serve` on the simulator backend, a free port of 127.0.0.1 and `dataDir`,
 * with `extraArgs` (a spec's own flags), through the CLI's entry with the allocator setting its
 * package.json script gives it: the e2e specs meet the server as a user does.
 */
export async function startServerProcess(
  dataDir: string,
  extraArgs: readonly string[] = [],
): Promise<ServerProcess> {
  const { child, base, exited } = await spawnServe({
    cwd: repoRoot,
    node: ['apps/server/scripts/streamscope.mjs'],
    dataDir,
    args: extraArgs,
    env: { MALLOC_MMAP_THRESHOLD_: '4194304' },
  });
  return {
    base,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
