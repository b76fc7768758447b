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
}

/** A bad flag or argument: main prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
