// `streamscope serve` started as a process of its own, as a user starts it, on a free port of
// 127.0.0.1: the server's tests and the browser tests start servers with flags of their own so.
// Plain JavaScript with a .d.mts beside it, so that the e2e specs (which may not import the
// server's sources) can use it too.
import { spawn } from 'node:child_process';

/** A server not listening this long after it started is taken as stuck: ended, and said so. */
const startLimitMs = 120_000;

/** @param {{ cwd: string, node: readonly string[], dataDir: string, args?: readonly string[], env?: Readonly<Record<string, string>>, startLimitMs?: number }} options */
export async function spawnServe({ cwd, node, dataDir, args = [], env = {}, ...limit }) {
  const child = spawn(
    process.execPath,
    [...node, 'serve', '--port', '0', '--data', dataDir, '--backend', 'sim', ...args],
    { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => (err += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const base = await new Promise((resolve, reject) => {
    const ms = limit.startLimitMs ?? startLimitMs;
    let killed = false;
    // Ended, then said once it has exited (below): a failed start leaves no process behind.
    const stuck = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, ms);
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      const match = /serving (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1] !== undefined) {
        clearTimeout(stuck);
        resolve(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(stuck);
      reject(
        new Error(
          killed
            ? `the server was not listening ${ms / 1000} s after it started: ${err}`
            : `the server exited (${String(code)}) before listening: ${err}`,
        ),
      );
    });
    // Node could not start at all (no exit follows then).
    child.once('error', (error) => {
      clearTimeout(stuck);
      reject(new Error(`the server did not start: ${error.message}`));
    });
  });
  return { child, base, stderr: () => err, exited };
}
