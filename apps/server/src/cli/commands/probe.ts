import type { Command } from '../command.ts';

// Placeholder until issue 4 lands this command; it says so rather than pretending.
export const probeCommand: Command = {
  name: 'probe',
  summary: 'Report the CUDA driver, CUPTI and devices as JSON, or why not',
  usage: 'usage: pnpm streamscope probe',
  run(_args, io) {
    io.err('streamscope probe: not available in this build yet (issue 4)');
    return Promise.resolve(1);
  },
};
