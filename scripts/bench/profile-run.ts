import { spawn } from 'node:child_process';

// Running the device bench's programs: one command, its output, a time limit.

export interface Ran {
  readonly stdout: string;
  /** Only when asked for (withStderr); else ''. */
  readonly stderr: string;
  readonly code: number | null;
}

/** Runs a command to its end (killed past timeoutMs); resolves with its output and exit code. */
export function runCommand(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs = 300_000,
  withStderr = false,
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env,
      cwd,
      stdio: ['ignore', 'pipe', withStderr ? 'pipe' : 'ignore'],
    });
    let stdout = '';
    let stderr = '';
    // A run that hangs (a latency client whose run never started) ends here, not the bench.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}
