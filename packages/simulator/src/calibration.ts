import type { CalibrationDevice } from './calibration-values.ts';
import { CalibrationError, applyCalibration, parseDevice, record } from './calibration-values.ts';
import type { DeviceProfile } from './profile.ts';
import { deviceProfiles, findProfile } from './profiles.ts';

export { CalibrationError };
export type { CalibrationDevice };

/**
 * What `streamscope calibrate` writes: the device, when and with which driver it was measured,
 * every value its benchmarks measured (by profile path, e.g. "api.launchKernel"), and the
 * profile the rest is inherited from:
 *
 *     { "device": { "name": "NVIDIA H100 80GB HBM3", "smCount": 132, "copyEngineCount": 3,
 *                   "memoryBytes": 85017493504, "priorityRange": [-5, 0], "computeCapability": "9.0" },
 *       "driver": "580.159.04", "date": "2026-11-24",
 *       "measured": { "api.launchKernel": 6803, "streamGapNs": 1024, ... },
 *       "inherited": { "from": "h100", "values": ["hostFuncLatencyNs", ...] } }
 *
 * The first form (launchLatencyNs, copyBandwidthBytesPerS, workIterationsPerNs, spinOffsetNs
 * at the top level) still loads.
 */
export interface Calibration {
  readonly device: CalibrationDevice;
  readonly driver: string;
  readonly date: string;
  readonly measured: Readonly<Record<string, number>>;
  readonly inherited?: { readonly from: string; readonly values: readonly string[] };
}

/** The first form's figures as measured values (paths named as in `calibratedValues`). */
function firstForm(root: Record<string, unknown>): Record<string, unknown> {
  const bw = record(root.copyBandwidthBytesPerS, '$.copyBandwidthBytesPerS');
  const measured: Record<string, unknown> = {
    'api.launchKernel': root.launchLatencyNs,
    workIterationsPerNs: root.workIterationsPerNs,
    spinOffsetNs: root.spinOffsetNs,
  };
  for (const key of ['htodPinned', 'htodPageable', 'dtohPinned', 'dtohPageable', 'dtod']) {
    measured[`copyBandwidthBytesPerS.${key}`] = bw[key];
  }
  for (const [key, value] of Object.entries(measured)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      const path = key.startsWith('copy')
        ? `$.${key}`
        : `$.${key === 'api.launchKernel' ? 'launchLatencyNs' : key}`;
      throw new CalibrationError(
        `${path}: expected a positive number, got ${JSON.stringify(value)}`,
      );
    }
  }
  return measured;
}

/** The shipped profile a calibration of `deviceName` inherits from. */
export function baseProfileFor(deviceName: string): DeviceProfile {
  return /H200/i.test(deviceName) ? deviceProfiles.h200 : deviceProfiles.h100;
}

/**
 * Checks calibration JSON and returns its profile: the shipped profile of that GPU (or the one
 * it names under `inherited.from`) with the measured values. Names the JSON path that is wrong.
 */
export function profileFromCalibration(json: unknown): DeviceProfile {
  const root = record(json, '$');
  const device = parseDevice(root.device);
  const isFirstForm = root.measured === undefined;
  const measured = isFirstForm ? firstForm(root) : record(root.measured, '$.measured');
  const from = isFirstForm ? undefined : (root.inherited as { from?: unknown } | undefined)?.from;
  const base =
    typeof from === 'string' && findProfile(from) !== undefined
      ? findProfile(from)!
      : baseProfileFor(device.name);
  const text = (key: string): string => (typeof root[key] === 'string' ? root[key] : 'unknown');
  return applyCalibration(base, device, measured, {
    driver: text('driver'),
    date: text('date'),
    name: `calibrated:${device.name}`,
    title: `${device.name} (calibrated)`,
  });
}
