import process from 'node:process';
import type { Command, CommandIo } from './command.ts';
import { UsageError } from './command.ts';
import { commands } from './registry.ts';

function topUsage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'usage: pnpm streamscope <command> [options]',
    '',
    'commands:',
    ...lines,
    '',
    "Run 'pnpm streamscope <command> --help' for a command's options.",
  ].join('\n');
}

/** Runs the CLI; returns the exit status (0 ok, 1 failure, 2 usage). */
export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(topUsage());
    return name === undefined ? 2 : 0;
  }
  const command: Command | undefined = commands.find((c) => c.name === name);
  if (command === undefined) {
    io.err(`streamscope: unknown command '${name}'\n\n${topUsage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`streamscope ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    io.err(`streamscope ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/**
 * Runs the CLI on this process's arguments and sets its exit status: what `pnpm streamscope`
 * does, from the bundle (apps/server/scripts/streamscope.mjs) or from this file under tsx.
 */
export function runCliProcess(): void {
  const io: CommandIo = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    write: (chunk) =>
      new Promise((resolve, reject) => {
        if (process.stdout.write(chunk)) {
          resolve();
          return;
        }
        const settle = (error?: Error): void => {
          process.stdout.off('drain', settle);
          process.stdout.off('error', settle);
          if (error === undefined) {
            resolve();
          } else {
            reject(error);
          }
        };
        process.stdout.once('drain', settle);
        process.stdout.once('error', settle);
      }),
  };
  main(process.argv.slice(2), io).then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      process.stderr.write(`streamscope: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

if (
  process.argv[1] !== undefined &&
  import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))
) {
  runCliProcess();
}
