// Reads a calibration out of the benchmark traces a device run kept (calibration-traces.tar.xz
// from `device-run.sh calibrate`, unpacked: NAME.ROUND.sstrace, or NAME.sstrace for one round):
// the readings `streamscope calibrate` takes, so a reading can be refined without a device run.
//   pnpm tsx scripts/gpu/calibration-from-traces.ts DIR DRIVER DATE > calibration.json
import { readFileSync, readdirSync } from 'node:fs';
import process from 'node:process';
import { calibrationFromTraces } from '@streamscope/executor';
import type { Trace } from '@streamscope/trace';
import { loadTrace } from '@streamscope/trace';

const [dir, driver = 'unknown', date = 'unknown'] = process.argv.slice(2);
if (dir === undefined) {
  process.stderr.write('usage: calibration-from-traces.ts DIR DRIVER DATE\n');
  process.exit(2);
}
const traces = new Map<string, Trace[]>();
for (const file of readdirSync(dir).sort()) {
  const name = file.split('.')[0]!;
  const trace = loadTrace(new Uint8Array(readFileSync(`${dir}/${file}`)));
  traces.set(name, [...(traces.get(name) ?? []), trace]);
}
const info = traces.get('launch')?.[0]?.devices[0];
if (info === undefined) {
  process.stderr.write(`${dir}: no launch benchmark trace naming its device\n`);
  process.exit(1);
}
const calibration = calibrationFromTraces(
  traces,
  {
    name: info.name,
    smCount: info.smCount ?? 0,
    copyEngineCount: info.copyEngineCount ?? 0,
    memoryBytes: info.memoryBytes ?? 0,
    priorityRange: info.priorityRange ?? [0, 0],
    ...(info.computeCapability !== undefined ? { computeCapability: info.computeCapability } : {}),
  },
  { driver, date },
  (bench, message) => process.stderr.write(`${bench}: ${message}\n`),
);
process.stdout.write(JSON.stringify(calibration, null, 2) + '\n');
