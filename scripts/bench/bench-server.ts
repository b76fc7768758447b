import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

// `streamscope serve` as its own process for the benchmarks that measure the server: from the
// TypeScript sources through tsx, or, when this module runs from a bundle (server-bundle.ts),
// the bundled server beside it with plain Node (a machine without node_modules).

const here = path.dirname(fileURLToPath(import.meta.url));
/** True when this module runs bundled: its scripts are the .mjs files beside it. */
const bundled = !import.meta.url.endsWith('.ts');
/** The repository: a bundled bench is started from its root. */
export const root = bundled ? process.cwd() : path.resolve(here, '..', '..');
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

/**
 * Runs a TypeScript script of the repository in its own Node process: through tsx, or in a
 * bundle the bundled script of the same base name beside it (`main.ts` -> `main.mjs`).
 */
export function nodeScript(
  script: string,
  args: readonly string[],
): ChildProcessWithoutNullStreams {
  if (!bundled) {
    return tsx(script, args);
  }
  const bundledScript = path.join(here, `${path.basename(script, '.ts')}.mjs`);
  return spawn(process.execPath, [bundledScript, ...args], { cwd: root, stdio: 'pipe' });
}

/** Starts `streamscope serve` on a free port over `dataDir` and resolves once it serves. */
export async function serve(dataDir: string): Promise<BenchServer> {
  const child = nodeScript(cli, ['serve', '--port', '0', '--data', dataDir, '--backend', 'sim']);
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
