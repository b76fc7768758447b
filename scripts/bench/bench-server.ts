import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

// `streamscope serve` as its own process for the benchmarks that measure the server.

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'apps', 'server', 'src', 'cli', 'main.ts');

export interface BenchServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** http://127.0.0.1:PORT */
  readonly base: string;
}

/** Runs a TypeScript script of the repository in its own Node process. */
export function tsx(script: string, args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    stdio: 'pipe',
  });
}

/** Starts `streamscope serve` on a free port over `dataDir` and resolves once it serves. */
export async function serve(dataDir: string): Promise<BenchServer> {
  const child = tsx(cli, ['serve', '--port', '0', '--data', dataDir, '--backend', 'sim']);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const base = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${stderr}`)));
    lines.on('line', (line) => {
      const url = /^streamscope serving (http:\/\/[^/]+)\//.exec(line)?.[1];
      if (url !== undefined) {
        resolve(url);
      }
    });
  });
  return { child, base };
}

/** SIGTERM, then waits for the process to exit. */
export async function stop(server: BenchServer): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}
