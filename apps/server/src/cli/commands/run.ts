import type { Command } from '../command.ts';

// Placeholder until issue 3 lands this command; it says so rather than pretending.
export const runCommand: Command = {
  name: 'run',
  summary: 'Run a workload or preset on a backend and save its trace',
  usage: 'usage: pnpm streamscope run (WORKLOAD.json | --preset NAME) [--set PARAM=VALUE ...] [--backend cuda|sim|replay|auto] [--profile NAME] [--out FILE] [--summary]',
  run(_args, io) {
    io.err('streamscope run: not available in this build yet (issue 3)');
    return Promise.resolve(1);
  },
};
