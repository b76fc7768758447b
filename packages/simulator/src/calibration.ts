import type { DeviceProfile } from './profile.ts';
import { deviceProfiles } from './profiles.ts';

/** Thrown by `profileFromCalibration`; the message names the JSON path that is wrong. */
export class CalibrationError extends Error {
  override readonly name = 'CalibrationError';
}

/**
 * What `streamscope calibrate` prints (one JSON object) and this accepts:
 *
 *     { "device": { "name": "NVIDIA H200", "smCount": 132, "copyEngineCount": 3,
 *                   "memoryBytes": 150754820096, "priorityRange": [-5, 0],
 *                   "computeCapability": "9.0" (optional) },
 *       "launchLatencyNs": 4000,            // host time of one kernel launch call
 *       "copyBandwidthBytesPerS": { "htodPinned": 5.16e10, "htodPageable": 8.4e9,
 *                                   "dtohPinned": 5.13e10, "dtohPageable": 8.0e9, "dtod": 2.08e12 },
 *       "workIterationsPerNs": 0.5,         // fixed-work kernel, per thread, idle GPU
 *       "spinOffsetNs": 600 }               // timed kernel: measured minus requested
 */
export interface Calibration {
  readonly device: {
    readonly name: string;
    readonly smCount: number;
    readonly copyEngineCount: number;
    readonly memoryBytes: number;
    readonly priorityRange: readonly [number, number];
    readonly computeCapability?: string;
  };
  readonly launchLatencyNs: number;
  readonly copyBandwidthBytesPerS: {
    readonly htodPinned: number;
    readonly htodPageable: number;
    readonly dtohPinned: number;
    readonly dtohPageable: number;
    readonly dtod: number;
  };
  readonly workIterationsPerNs: number;
  readonly spinOffsetNs: number;
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CalibrationError(`${path}: expected an object`);
  }
  return value as Record<string, unknown>;
}

function positive(
  obj: Record<string, unknown>,
  key: string,
  path: string,
  allowZero = false,
): number {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (!allowZero && v === 0)) {
    throw new CalibrationError(
      `${path}.${key}: expected a ${allowZero ? 'non-negative' : 'positive'} number, got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

function integer(obj: Record<string, unknown>, key: string, path: string, min: number): number {
  const v = positive(obj, key, path, min === 0);
  if (!Number.isInteger(v) || v < min) {
    throw new CalibrationError(`${path}.${key}: expected a whole number ≥ ${min}, got ${v}`);
  }
  return v;
}

/** Checks calibration JSON and returns a profile: Hopper defaults with the measured figures. */
export function profileFromCalibration(json: unknown): DeviceProfile {
  const root = record(json, '$');
  const device = record(root.device, '$.device');
  const name = device.name;
  if (typeof name !== 'string' || name === '') {
    throw new CalibrationError('$.device.name: expected the device name');
  }
  const range = device.priorityRange;
  if (
    !Array.isArray(range) ||
    range.length !== 2 ||
    !range.every((v) => Number.isInteger(v)) ||
    (range[0] as number) > (range[1] as number)
  ) {
    throw new CalibrationError(
      '$.device.priorityRange: expected [greatest, least] integers, greatest ≤ least',
    );
  }
  const cc = device.computeCapability;
  if (cc !== undefined && typeof cc !== 'string') {
    throw new CalibrationError('$.device.computeCapability: expected text such as "9.0"');
  }
  const bw = record(root.copyBandwidthBytesPerS, '$.copyBandwidthBytesPerS');
  const bwPath = '$.copyBandwidthBytesPerS';
  const base = /H200/i.test(name) ? deviceProfiles.h200 : deviceProfiles.h100;
  const copyEngineCount = integer(device, 'copyEngineCount', '$.device', 1);
  const smCount = integer(device, 'smCount', '$.device', 1);
  return {
    ...base,
    name: `calibrated:${name}`,
    title: `${name} (calibrated)`,
    source: 'streamscope calibrate on this machine',
    device: {
      ...base.device,
      name,
      computeCapability: cc ?? base.device.computeCapability,
      smCount,
      copyEngineCount,
      memoryBytes: integer(device, 'memoryBytes', '$.device', 1),
      priorityRange: [range[0] as number, range[1] as number],
    },
    copyEngines:
      copyEngineCount === 1
        ? ['any']
        : ['htod', 'dtoh', ...Array<'any'>(copyEngineCount - 2).fill('any')],
    copyBandwidthBytesPerS: {
      ...base.copyBandwidthBytesPerS,
      htodPinned: positive(bw, 'htodPinned', bwPath),
      htodPageable: positive(bw, 'htodPageable', bwPath),
      dtohPinned: positive(bw, 'dtohPinned', bwPath),
      dtohPageable: positive(bw, 'dtohPageable', bwPath),
      dtod: positive(bw, 'dtod', bwPath),
    },
    workIterationsPerNs: positive(root, 'workIterationsPerNs', '$'),
    spinOffsetNs: positive(root, 'spinOffsetNs', '$', true),
    api: { ...base.api, launchKernel: positive(root, 'launchLatencyNs', '$') },
  };
}
