import type { Command } from './command.ts';
import { serveCommand } from './commands/serve.ts';
import { runCommand } from './commands/run.ts';
import { probeCommand } from './commands/probe.ts';
import { calibrateCommand } from './commands/calibrate.ts';
import { importCommand } from './commands/import.ts';
import { analyzeCommand } from './commands/analyze.ts';
import { diffCommand } from './commands/diff.ts';
import { exportCommand } from './commands/export.ts';
import { profileCommand } from './commands/profile.ts';

/** Every subcommand, in the order `--help` lists them. */
export const commands: readonly Command[] = [
  serveCommand,
  runCommand,
  profileCommand,
  probeCommand,
  calibrateCommand,
  importCommand,
  analyzeCommand,
  diffCommand,
  exportCommand,
];
