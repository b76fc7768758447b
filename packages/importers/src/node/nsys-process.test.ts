import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runNsys } from './nsys-process.ts';
import { isRunning } from './process-alive.ts';

/** Pids a test started, ended after it whatever happened. */
const started: number[] = [];

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/**
 * An `nsys` as an installed wrapper script can be: a shell that runs the real program without
 * `exec` and waits for it. The program ignores SIGTERM (as a program busy writing its export
 * may) and holds the wrapper's stdout and stderr; the shell ends at SIGTERM.
 */
async function wrapperWithStubbornHelper(dir: string): Promise<{ nsys: string; pidFile: string }> {
  const pidFile = path.join(dir, 'helper.pid');
  const helper = path.join(dir, 'helper.cjs');
  await writeFile(
    helper,
    `process.on('SIGTERM', () => undefined);
require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
setInterval(() => undefined, 60_000);
`,
  );
  const nsys = path.join(dir, 'nsys');
  await writeFile(
    nsys,
    `#!/bin/sh\n${JSON.stringify(process.execPath)} ${JSON.stringify(helper)} &\nwait\n`,
  );
  await chmod(nsys, 0o755);
  return { nsys, pidFile };
}

async function helperPid(pidFile: string): Promise<number> {
  let text = '';
  await vi.waitFor(
    async () => {
      text = await readFile(pidFile, 'utf8');
      expect(text).not.toBe('');
    },
    { timeout: 10_000 },
  );
  const pid = Number(text);
  started.push(pid);
  return pid;
}

describe.skipIf(process.platform === 'win32')('runNsys', () => {
  it('kills the rest of the process group past the time limit when the wrapper it ran has exited', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'nsys-process-'));
    const { nsys, pidFile } = await wrapperWithStubbornHelper(dir);
    const running = runNsys(nsys, ['export'], { timeoutMs: 1_000 });
    const pid = await helperPid(pidFile);
    // SIGTERM at 1 s ends the shell; SIGKILL 3 s later must still reach the helper, which holds
    // the output pipes: until it is gone the run cannot end.
    expect((await running).exit).toEqual({ kind: 'timed-out' });
    expect(isRunning(pid)).toBe(false);
  }, 15_000);

  it('kills the rest of the process group on a cancel when the wrapper it ran has exited', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'nsys-process-'));
    const { nsys, pidFile } = await wrapperWithStubbornHelper(dir);
    const cancel = new AbortController();
    const running = runNsys(nsys, ['export'], { timeoutMs: 60_000, signal: cancel.signal });
    const pid = await helperPid(pidFile);
    cancel.abort();
    expect((await running).exit).toEqual({ kind: 'cancelled' });
    expect(isRunning(pid)).toBe(false);
  }, 15_000);
});
