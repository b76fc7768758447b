import type { Command } from '../command.ts';

// Placeholder until issue 8 lands this command; it says so rather than pretending.
export const analyzeCommand: Command = {
  name: 'analyze',
  summary: 'Print overlap, gaps and rule findings for a trace',
  usage: 'usage: pnpm streamscope analyze (TRACE | FILE) [--json] [--fail-on RULE ...]',
  run(_args, io) {
    io.err('streamscope analyze: not available in this build yet (issue 8)');
    return Promise.resolve(1);
  },
};
