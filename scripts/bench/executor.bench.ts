import process from 'node:process';
import { CudaBackend, defaultAddonPath } from '@streamscope/executor';
import { collectionOverhead, copyFractions, deliveryLatency } from '../gpu/executor-figures.ts';
import type { Report } from './report.ts';

/**
 * GPU figures of the native executor: collection overhead, traced copy bandwidth against an
 * untraced loop, and record delivery latency. They need a GPU: elsewhere this says why and
 * reports nothing (the device runner, scripts/gpu/device-run.sh, prints the same figures there).
 */
export async function run(report: Report): Promise<void> {
  const options = { addonPath: defaultAddonPath };
  const backend = new CudaBackend(options);
  const status = await backend.status();
  if (!status.available) {
    process.stderr.write(
      `executor.bench: skipped, no GPU run possible: ${status.reason ?? 'unknown'}\n`,
    );
    return;
  }
  await collectionOverhead(backend, report);
  await copyFractions(backend, options, report);
  await deliveryLatency(backend, report);
}
