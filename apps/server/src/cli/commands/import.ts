import type { Command } from '../command.ts';

// Placeholder until issue 5 lands this command; it says so rather than pretending.
export const importCommand: Command = {
  name: 'import',
  summary: 'Import an Nsight Systems or PyTorch/kineto export into a trace',
  usage: 'usage: pnpm streamscope import FILE [--out TRACE] [--summary]',
  run(_args, io) {
    io.err('streamscope import: not available in this build yet (issue 5)');
    return Promise.resolve(1);
  },
};
