import type { Command } from '../command.ts';

// Placeholder until issue 4 lands this command; it says so rather than pretending.
export const calibrateCommand: Command = {
  name: 'calibrate',
  summary: 'Measure launch latency, copy bandwidths and kernel rates on the GPU',
  usage: 'usage: pnpm streamscope calibrate [--out FILE]',
  run(_args, io) {
    io.err('streamscope calibrate: not available in this build yet (issue 4)');
    return Promise.resolve(1);
  },
};
