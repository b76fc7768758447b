import type { Command } from '../command.ts';

// Placeholder until issue 6 lands this command; it says so rather than pretending.
export const serveCommand: Command = {
  name: 'serve',
  summary: 'Start the dashboard server (Express + ws) on 127.0.0.1',
  usage: 'usage: pnpm streamscope serve [--port N] [--host ADDR] [--data DIR] [--backend auto|cuda|sim]',
  run(_args, io) {
    io.err('streamscope serve: not available in this build yet (issue 6)');
    return Promise.resolve(1);
  },
};
