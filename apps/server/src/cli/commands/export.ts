import type { Command } from '../command.ts';

// Placeholder until issue 5 lands this command; it says so rather than pretending.
export const exportCommand: Command = {
  name: 'export',
  summary: 'Export a trace as Chrome trace JSON (opens in Perfetto)',
  usage: 'usage: pnpm streamscope export TRACE --format chrome [--out FILE]',
  run(_args, io) {
    io.err('streamscope export: not available in this build yet (issue 5)');
    return Promise.resolve(1);
  },
};
