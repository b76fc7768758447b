import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import process from 'node:process';

/** How an nsys process ended. */
export type NsysExit =
  | {
      readonly kind: 'exited';
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
    }
  | { readonly kind: 'timed-out' }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'not-started'; readonly reason: string };

export interface NsysRunResult {
  readonly exit: NsysExit;
  /** The last bytes of its stderr and stdout (a few KiB each; nsys prints progress bars). */
  readonly stderrTail: string;
  readonly stdoutTail: string;
}

export interface NsysRunOptions {
  /** Longest it may run; then its process group is ended. */
  readonly timeoutMs: number;
  /** Ends its process group (SIGTERM, then SIGKILL). */
  readonly signal?: AbortSignal;
}

const tailChars = 16 * 1024;
// A process group that ignores SIGTERM this long is killed.
const killGraceMs = 3_000;

/** Process groups running now: killed if this process exits while they run. */
const running = new Set<ChildProcess>();
let exitHookSet = false;

/**
 * Runs nsys with `args` in a process group of its own (nsys may start helpers, and its
 * installed `bin/nsys` can be a wrapper script), capturing the tails of its output. Resolves
 * once the group's leader has exited, whatever ended it; never rejects.
 */
export function runNsys(
  nsysPath: string,
  args: readonly string[],
  options: NsysRunOptions,
): Promise<NsysRunResult> {
  setExitHook();
  let stderrTail = '';
  let stdoutTail = '';
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(nsysPath, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
        env: nsysEnv(process.env),
      });
    } catch (error) {
      resolve({ exit: notStarted(error), stderrTail, stdoutTail });
      return;
    }
    running.add(child);
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderrTail = (stderrTail + text).slice(-tailChars);
    });
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      stdoutTail = (stdoutTail + text).slice(-tailChars);
    });
    let ending: 'timed-out' | 'cancelled' | undefined;
    const stop = (why: 'timed-out' | 'cancelled'): void => {
      if (ending !== undefined) {
        return;
      }
      ending = why;
      killGroup(child, 'SIGTERM');
      // The whole group, even once its leader (a wrapper script) has exited: a helper that
      // ignored SIGTERM would otherwise live on, and hold the output pipes the run waits on.
      // Left to fire after the run has ended too: a helper that let go of the pipes is still
      // in the group. Unref'd, so it keeps no process alive.
      setTimeout(() => {
        killGroup(child, 'SIGKILL');
        running.delete(child);
      }, killGraceMs).unref();
    };
    const timer = setTimeout(() => stop('timed-out'), options.timeoutMs);
    const onAbort = (): void => stop('cancelled');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    const settle = (exit: NsysExit): void => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // A stopped group stays listed until its SIGKILL: if this process exits first, then.
      if (ending === undefined) {
        running.delete(child);
      }
      resolve({ exit, stderrTail, stdoutTail });
    };
    child.once('error', (error) => settle(notStarted(error)));
    // 'close': the process has exited and its output is all read.
    child.once('close', (code, signal) =>
      settle(ending !== undefined ? { kind: ending } : { kind: 'exited', code, signal }),
    );
    if (options.signal?.aborted === true) {
      onAbort();
    }
  });
}

/** "NVIDIA Nsight Systems version 2025.3.1.90-…" → "2025.3.1.90-…", or undefined (5 s at most). */
export async function nsysVersion(nsysPath: string): Promise<string | undefined> {
  const { exit, stdoutTail, stderrTail } = await runNsys(nsysPath, ['--version'], {
    timeoutMs: 5_000,
  });
  if (exit.kind !== 'exited' || exit.code !== 0) {
    return undefined;
  }
  return /version\s+(\d[\w.-]*)/i.exec(`${stdoutTail}\n${stderrTail}`)?.[1];
}

/**
 * The last `count` lines that say something: no blank lines, no progress bars
 * ("Processing [=====   42%]"), no terminal escapes; each at most 300 characters.
 */
export function lastMeaningfulLines(text: string, count = 4): string[] {
  return (
    text
      // eslint-disable-next-line no-control-regex -- terminal escapes are what is removed
      .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
      .split(/\r\n|\r|\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !/^[\w ]*\[[=#>.\s-]*(\d{1,3}%)?[=#>.\s-]*\]$/.test(line))
      .slice(-count)
      .map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line))
  );
}

function notStarted(error: unknown): NsysExit {
  const code = (error as NodeJS.ErrnoException).code;
  return {
    kind: 'not-started',
    reason: code ?? (error instanceof Error ? error.message : String(error)),
  };
}

/**
 * Signals the child's process group, whether or not the child (its leader) has exited: what
 * it started may still run. ESRCH once the group is empty.
 */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) {
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // No group (yet: a child not yet past its setsid, or where groups are not had): the child.
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
    }
  }
}

function setExitHook(): void {
  if (exitHookSet) {
    return;
  }
  exitHookSet = true;
  // A CLI or server that exits while nsys runs leaves no nsys behind.
  process.once('exit', () => {
    for (const child of running) {
      killGroup(child, 'SIGKILL');
    }
  });
}

/** The environment nsys runs in: this process's, less streamscope's own settings (its token). */
export function nsysEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('STREAMSCOPE_')));
}
