import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Calibration } from '@streamscope/executor';
import {
  CudaBackend,
  defaultAddonPath,
  runCalibration,
  simulatedReadings,
} from '@streamscope/executor';
import type { DeviceProfile } from '@streamscope/simulator';
import { CalibrationError, findProfile, profileFromCalibration } from '@streamscope/simulator';
import type { Command } from '../command.ts';
import { UsageError } from '../command.ts';
import { intValue, oneValue, parseFlags } from '../parse-flags.ts';

const usage = [
  'usage: pnpm streamscope calibrate [--data DIR] [--out FILE] [--device N] [--rounds N]',
  '                                  [--compare PROFILE]',
  '',
  'Runs a micro-benchmark per simulator parameter on the GPU (launch and host costs, stream and',
  'engine gaps, copy engines and bandwidths, pageable staging, cudaMalloc/cudaFree, graphs, event',
  'gaps, crowded-SM block starts, stream priorities, hardware queues, the first use of each kind',
  'of call), each a small workload that the simulator runs',
  'too, and writes a calibration: the values measured (with device, driver and date) and the',
  'profile the rest is inherited from. `streamscope run --calibration FILE` and the simulator load',
  'it as a device profile; `streamscope serve --data DIR` offers it as "this GPU (calibrated)".',
  '',
  '  --data DIR         write DIR/calibration.json (default: data, where serve looks)',
  '  --out FILE         also write the calibration to FILE',
  '  --device N         CUDA device ordinal (default 0)',
  '  --rounds N         run every benchmark N times, each value the median (default 3)',
  '  --compare PROFILE  print, per parameter, the measured value beside PROFILE (a built-in',
  '                     profile or a calibration file) and what the simulator reads with it',
].join('\n');

async function profileNamed(name: string): Promise<DeviceProfile> {
  const builtIn = findProfile(name);
  if (builtIn !== undefined) {
    return builtIn;
  }
  let json: unknown;
  try {
    json = JSON.parse(await readFile(name, 'utf8')) as unknown;
  } catch (error) {
    throw new UsageError(
      `--compare ${name}: neither a built-in profile nor a readable calibration file (${(error as Error).message})`,
    );
  }
  try {
    return profileFromCalibration(json);
  } catch (error) {
    if (error instanceof CalibrationError) {
      throw new UsageError(`--compare ${name}: ${error.message}`);
    }
    throw error;
  }
}

/** The value at a dotted path of a profile ("api.launchKernel"), where it is a number. */
function valueAt(profile: DeviceProfile, key: string): number | undefined {
  if (key === 'memcpyEnginesPerDirection') {
    return profile.copyEngines.filter((r) => r === 'htod' || r === 'any').length;
  }
  if (key === 'mallocSyncs' || key === 'freeSyncs') {
    return profile[key] ? 1 : 0;
  }
  let at: unknown = profile;
  for (const part of key.split('.')) {
    at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined;
  }
  return typeof at === 'number' ? at : undefined;
}

const fmt = (v: number | undefined): string =>
  v === undefined
    ? '-'
    : Math.abs(v) >= 1e6
      ? v.toExponential(3)
      : String(Math.round(v * 100) / 100);

/** One line per measured value: measured, the profile's value, the simulator's reading on it. */
export function compareLines(calibration: Calibration, profile: DeviceProfile): string[] {
  const simulated = simulatedReadings(profile);
  const lines = [
    `measured on ${calibration.device.name} (${calibration.driver}, ${calibration.date}) against profile ${profile.name}`,
    `${'value'.padEnd(38)} ${'measured'.padStart(12)} ${'profile'.padStart(12)} ${'simulated'.padStart(12)}`,
  ];
  for (const [key, measured] of Object.entries(calibration.measured)) {
    const own = key.startsWith('check.') ? undefined : valueAt(profile, key);
    lines.push(
      `${key.padEnd(38)} ${fmt(measured).padStart(12)} ${fmt(own).padStart(12)} ${fmt(simulated[key]).padStart(12)}`,
    );
  }
  return lines;
}

/** `streamscope calibrate`: measures the GPU for the simulator; fails with the reason without one. */
export const calibrateCommand: Command = {
  name: 'calibrate',
  summary: 'Measure every simulator parameter on the GPU and write a calibrated profile',
  usage,
  async run(args, io) {
    const flags = parseFlags(args, { values: ['out', 'data', 'device', 'rounds', 'compare'] });
    const device = intValue(flags, 'device', 0, 64);
    const rounds = intValue(flags, 'rounds', 1, 20) ?? 3;
    const compareWith = oneValue(flags, 'compare');
    const against = compareWith === undefined ? undefined : await profileNamed(compareWith);
    const backend = new CudaBackend({ addonPath: defaultAddonPath });
    let calibration: Calibration;
    try {
      ({ calibration } = await runCalibration(
        backend,
        device === undefined ? undefined : String(device),
        { date: new Date().toISOString().slice(0, 10) },
        60_000,
        undefined,
        rounds,
      ));
    } catch (error) {
      io.err(`streamscope calibrate: ${(error as Error).message}`);
      return 1;
    }
    const json = JSON.stringify(calibration, null, 2) + '\n';
    const dataDir = path.resolve(oneValue(flags, 'data') ?? 'data');
    await mkdir(dataDir, { recursive: true });
    await writeFile(path.join(dataDir, 'calibration.json'), json);
    const out = oneValue(flags, 'out');
    if (out !== undefined) {
      await writeFile(out, json);
    }
    if (against !== undefined) {
      for (const line of compareLines(calibration, against)) {
        io.out(line);
      }
      return 0;
    }
    io.out(json.trimEnd());
    return 0;
  },
};
