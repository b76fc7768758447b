import { CudaBackend, defaultAddonPath, unavailableReason } from '@streamscope/executor';
import type { Command } from '../command.ts';
import { parseFlags } from '../parse-flags.ts';

const usage = [
  'usage: pnpm streamscope probe',
  '',
  'Prints one JSON object: whether a GPU run is possible (`available`, and `reason` when not),',
  'the native addon (loaded, or why not), the CUDA runtime and driver versions with every device',
  '(SMs, copy engines, priority range, memory), and CUPTI. The probe runs in a child process.',
].join('\n');

/** `streamscope probe`: what the cuda backend can use on this machine, or exactly why not. */
export const probeCommand: Command = {
  name: 'probe',
  summary: 'Report the CUDA driver, CUPTI and devices as JSON, or why not',
  usage,
  async run(args, io) {
    parseFlags(args, {});
    const probe = await new CudaBackend({ addonPath: defaultAddonPath }).probe();
    const reason = unavailableReason(probe);
    io.out(
      JSON.stringify(
        { available: reason === undefined, ...(reason === undefined ? {} : { reason }), ...probe },
        null,
        2,
      ),
    );
    return 0;
  },
};
