import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromChild, ProbeReport, ToChild } from './protocol.ts';

/** The child script that loads the addon (plain JS, so it needs no TypeScript loader). */
export const defaultChildScript = fileURLToPath(new URL('./child-host.mjs', import.meta.url));

export interface ExecutorProcessOptions {
  readonly addonPath: string;
  readonly childScript?: string;
  /** How long the child may take to load the addon and probe. */
  readonly readyTimeoutMs?: number;
}

export type ExitInfo = { readonly code: number | null; readonly signal: NodeJS.Signals | null };

/**
 * One executor child process. Messages arrive in order through `onMessage`; `exited` settles
 * when the process is gone, whatever the cause.
 */
export class ExecutorProcess {
  readonly exited: Promise<ExitInfo>;
  private readonly child: ChildProcess;
  private handler: (message: FromChild) => void = () => undefined;
  private exitInfo: ExitInfo | undefined;
  private readonly readyProbe: Promise<ProbeReport>;

  constructor(options: ExecutorProcessOptions) {
    this.child = fork(options.childScript ?? defaultChildScript, [options.addonPath], {
      serialization: 'advanced',
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = new Promise((resolve) => {
      // 'close', not 'exit': it comes after every message the child sent was delivered.
      this.child.once('close', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
    this.readyProbe = new Promise<ProbeReport>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(new Error(`executor process did not start within ${readyTimeoutMs} ms`));
      }, readyTimeoutMs);
      this.child.on('message', (raw) => {
        const message = raw as FromChild;
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve(message.probe);
          return;
        }
        this.handler(message);
      });
      void this.exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`executor process exited before it was ready (${describeExit(exit)})`));
      });
    });
    // Nobody may be waiting yet; the rejection is observed by `ready()` callers.
    this.readyProbe.catch(() => undefined);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  /** Resolves with the child's probe once the addon was loaded (or failed to load). */
  ready(): Promise<ProbeReport> {
    return this.readyProbe;
  }

  onMessage(handler: (message: FromChild) => void): void {
    this.handler = handler;
  }

  send(message: ToChild): void {
    if (this.child.connected) {
      this.child.send(message);
    }
  }

  /** Hard stop: the child gets no say (a hung kernel cannot be cancelled politely). */
  kill(): void {
    if (this.exitInfo === undefined) {
      this.child.kill('SIGKILL');
    }
  }

  /** Lets the child exit on its own (it exits when the IPC channel closes). */
  close(): void {
    if (this.child.connected) {
      this.child.disconnect();
    }
  }
}

export function describeExit(exit: ExitInfo): string {
  return exit.signal !== null ? `killed by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`;
}

/** Probes in a short-lived child, so the caller's process never loads CUDA. */
export async function probeInChild(options: ExecutorProcessOptions): Promise<ProbeReport> {
  const child = new ExecutorProcess(options);
  try {
    return await child.ready();
  } catch (error) {
    return {
      addon: { loaded: false, path: options.addonPath, reason: (error as Error).message },
    };
  } finally {
    child.close();
  }
}

export interface CopyLoopOptions {
  readonly direction: 'htod' | 'dtoh';
  readonly pinned: boolean;
  readonly bytes: number;
  readonly reps: number;
  readonly device: number;
}

/** A plain cudaMemcpy loop without tracing, in its own child: the peak traced copies are held to. */
export async function measureCopyBandwidth(
  options: ExecutorProcessOptions,
  loop: CopyLoopOptions,
): Promise<number> {
  const child = new ExecutorProcess(options);
  try {
    await child.ready();
    return await new Promise<number>((resolve, reject) => {
      child.onMessage((message) => {
        if (message.type === 'bandwidth') {
          resolve(message.bytesPerS);
        } else if (message.type === 'error') {
          reject(new Error(message.message));
        }
      });
      void child.exited.then((exit) =>
        reject(new Error(`executor process ended (${describeExit(exit)})`)),
      );
      child.send({ type: 'copy-bandwidth', ...loop });
    });
  } finally {
    child.close();
  }
}
