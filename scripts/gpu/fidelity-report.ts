// The fidelity report: every lesson simulated on a device profile beside what the GPU measured
// (a fidelity-<gpu>.json from `device-run.sh fidelity`):
//   pnpm tsx scripts/gpu/fidelity-report.ts fixtures/runs/fidelity-h100.json h100
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { lessons } from '../../apps/web/src/lessons/lesson-catalogue.ts';
import type { FidelityMeasurement } from '../../apps/web/src/lessons/lesson-fidelity.ts';
import { fidelityRows, formatFidelity } from '../../apps/web/src/lessons/lesson-fidelity.ts';

const [file, profile = 'h100'] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: fidelity-report.ts FIDELITY_JSON [PROFILE]\n');
  process.exit(2);
}
const measurement = JSON.parse(readFileSync(file, 'utf8')) as FidelityMeasurement;
process.stdout.write(formatFidelity(fidelityRows(lessons, measurement, profile), measurement, profile) + '\n');
