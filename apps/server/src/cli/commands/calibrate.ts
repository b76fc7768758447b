import { writeFile } from 'node:fs/promises';
import { CudaBackend, defaultAddonPath, runCalibration } from '@streamscope/executor';
import type { Command } from '../command.ts';
import { intValue, oneValue, parseFlags } from '../parse-flags.ts';

const usage = [
  'usage: pnpm streamscope calibrate [--out FILE] [--device N]',
  '',
  'Runs a calibration workload on the GPU (launch latency, copy bandwidth per direction and',
  'memory kind, fixed-work kernel rate, timed-kernel offset) and prints it as JSON, the form',
  '`streamscope run --backend sim --calibration FILE` and the simulator load as a device profile.',
  '',
  '  --out FILE   also write the JSON to FILE',
  '  --device N   CUDA device ordinal (default 0)',
].join('\n');

/** `streamscope calibrate`: measures the GPU for the simulator; fails with the reason without one. */
export const calibrateCommand: Command = {
  name: 'calibrate',
  summary: 'Measure launch latency, copy bandwidths and kernel rates on the GPU',
  usage,
  async run(args, io) {
    const flags = parseFlags(args, { values: ['out', 'device'] });
    const device = intValue(flags, 'device', 0, 64);
    const backend = new CudaBackend({ addonPath: defaultAddonPath });
    let json: string;
    try {
      const { calibration } = await runCalibration(
        backend,
        device === undefined ? undefined : String(device),
      );
      json = JSON.stringify(calibration, null, 2);
    } catch (error) {
      io.err(`streamscope calibrate: ${(error as Error).message}`);
      return 1;
    }
    const out = oneValue(flags, 'out');
    if (out !== undefined) {
      await writeFile(out, json + '\n');
    }
    io.out(json);
    return 0;
  },
};
