import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** A dashboard server of its own, started as the README starts it (`pnpm streamscope serve`). */
export interface ServerProcess {
  readonly base: string;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `streamscope serve` on the simulator backend, a free port of 127.0.0.1 and `dataDir`,
 * with `extraArgs` (a spec's own flags); resolves once it listens. Run through the CLI's own
 * entry with the allocator setting its package.json script gives it, not through the server's
 * sources: the e2e specs meet the server as a user does.
 */
export async function startServerProcess(
  dataDir: string,
  extraArgs: readonly string[] = [],
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      'apps/server/scripts/streamscope.mjs',
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
      '--backend',
      'sim',
      ...extraArgs,
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '4194304' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1] !== undefined) {
        resolve(match[1]);
      }
    });
    void exited.then((code) =>
      reject(new Error(`the server exited (${String(code)}) before listening: ${err}`)),
    );
  });
  return {
    base,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
