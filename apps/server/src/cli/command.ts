/** One `streamscope` subcommand. `run` returns the process exit status. */
export interface Command {
  readonly name: string;
  /** One line for `--help`. */
  readonly summary: string;
  /** Full usage text, printed by `streamscope NAME --help` and on a usage error. */
  readonly usage: string;
  run(args: readonly string[], io: CommandIo): Promise<number>;
}

export interface CommandIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /**
   * Raw standard output (no newline added) that resolves once the output can take more: how a
   * command streams output too large to hold. Without it, streamed output goes through `out`
   * one line at a time.
   */
  readonly write?: (chunk: string) => Promise<void>;
}

/** A bad flag or argument: main prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
