// Types of serve-process.mjs.
import type { ChildProcess } from 'node:child_process';

export interface ServeOptions {
  /** The repository root. */
  readonly cwd: string;
  /** Node's arguments before `serve`: the CLI entry (and a loader, to run its sources). */
  readonly node: readonly string[];
  readonly dataDir: string;
  /** More flags of `serve`. */
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** How long it may take to listen before it is ended and the start fails (default 120 s). */
  readonly startLimitMs?: number;
}

export interface ServeProcess {
  readonly child: ChildProcess;
  /** http://127.0.0.1:PORT, once the server listens. */
  readonly base: string;
  /** Everything the server wrote to stderr so far (its log). */
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

/** Starts `streamscope serve --port 0 --data DIR --backend sim ARGS`; resolves once it listens. */
export function spawnServe(options: ServeOptions): Promise<ServeProcess>;
