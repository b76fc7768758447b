import type { CopyEngineRole, DeviceProfile, PageableStaging } from './profile.ts';
import { firstUseCalls } from './profile.ts';

/** Thrown by `profileFromCalibration` and `applyCalibration`; the message names the JSON path that is wrong. */
export class CalibrationError extends Error {
  override readonly name = 'CalibrationError';
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };
type Draft = Mutable<DeviceProfile>;

interface ValueRule {
  /** Least value allowed. */
  readonly min: number;
  readonly integer?: boolean;
  readonly apply: (profile: Draft, value: number) => void;
}

const positive = (apply: ValueRule['apply']): ValueRule => ({ min: Number.MIN_VALUE, apply });
const nonNegative = (apply: ValueRule['apply']): ValueRule => ({ min: 0, apply });
const flag = (apply: (p: Draft, on: boolean) => void): ValueRule => ({
  min: 0,
  integer: true,
  apply: (p, v) => {
    if (v > 1) {
      throw new CalibrationError('expected 0 or 1');
    }
    apply(p, v === 1);
  },
});

function staging(p: Draft): Mutable<PageableStaging> {
  p.pageable ??= { chunkBytes: 0, htodStagingBytesPerS: 0, dtohStagingBytesPerS: 0 };
  return p.pageable;
}

function firstUseValues(): Record<string, ValueRule> {
  return Object.fromEntries(
    firstUseCalls.map((call) => [
      `firstUseNs.${call}`,
      nonNegative((p, v) => (p.firstUseNs[call] = v)),
    ]),
  );
}

/**
 * Every profile value `streamscope calibrate` measures, by the dotted path the calibration JSON
 * names it with, and how it lands in a profile.
 */
export const calibratedValues: Readonly<Record<string, ValueRule>> = {
  'api.launchKernel': positive((p, v) => (p.api.launchKernel = v)),
  'api.memcpy': positive((p, v) => (p.api.memcpy = v)),
  'api.eventRecord': positive((p, v) => (p.api.eventRecord = v)),
  'api.streamWait': positive((p, v) => (p.api.streamWait = v)),
  'api.malloc': nonNegative((p, v) => (p.api.malloc = v)),
  'api.mallocPerGiB': nonNegative((p, v) => (p.api.mallocPerGiB = v)),
  'api.free': nonNegative((p, v) => (p.api.free = v)),
  'api.freePerGiB': nonNegative((p, v) => (p.api.freePerGiB = v)),
  'api.pinBytesPerS': positive((p, v) => (p.api.pinBytesPerS = v)),
  'api.mallocAsync': positive((p, v) => (p.api.mallocAsync = v)),
  'api.graphLaunch': nonNegative((p, v) => (p.api.graphLaunch = v)),
  'api.graphLaunchPerNode': nonNegative((p, v) => (p.api.graphLaunchPerNode = v)),
  'api.graphInstantiate': nonNegative((p, v) => (p.api.graphInstantiate = v)),
  'api.graphInstantiatePerNode': nonNegative((p, v) => (p.api.graphInstantiatePerNode = v)),
  hostCallGapNs: nonNegative((p, v) => (p.hostCallGapNs = v)),
  graphCallGapNs: nonNegative((p, v) => (p.graphCallGapNs = v)),
  firstCallGapNs: nonNegative((p, v) => (p.firstCallGapNs = v)),
  ...firstUseValues(),
  submitLatencyNs: nonNegative((p, v) => (p.submitLatencyNs = v)),
  streamGapNs: nonNegative((p, v) => (p.streamGapNs = v)),
  graphNodeGapNs: nonNegative((p, v) => (p.graphNodeGapNs = v)),
  graphFirstLaunchExtraNs: nonNegative((p, v) => (p.graphFirstLaunchExtraNs = v)),
  graphLaunchGapNs: nonNegative((p, v) => (p.graphLaunchGapNs = v)),
  spinOffsetNs: nonNegative((p, v) => (p.spinOffsetNs = v)),
  crowdedStartWarps: nonNegative((p, v) => (p.crowdedStartWarps = v)),
  crowdedStartNsPerWarp: nonNegative((p, v) => (p.crowdedStartNsPerWarp = v)),
  priorityWaitShare: nonNegative((p, v) => (p.priorityWaitShare = v)),
  workIterationsPerNs: positive((p, v) => (p.workIterationsPerNs = v)),
  workSaturationWarpsPerSm: positive((p, v) => (p.workSaturationWarpsPerSm = v)),
  'copyBandwidthBytesPerS.htodPinned': positive(
    (p, v) => (p.copyBandwidthBytesPerS.htodPinned = v),
  ),
  'copyBandwidthBytesPerS.dtohPinned': positive(
    (p, v) => (p.copyBandwidthBytesPerS.dtohPinned = v),
  ),
  'copyBandwidthBytesPerS.htodPageable': positive(
    (p, v) => (p.copyBandwidthBytesPerS.htodPageable = v),
  ),
  'copyBandwidthBytesPerS.dtohPageable': positive(
    (p, v) => (p.copyBandwidthBytesPerS.dtohPageable = v),
  ),
  'copyBandwidthBytesPerS.dtod': positive((p, v) => (p.copyBandwidthBytesPerS.dtod = v)),
  memsetBytesPerS: positive((p, v) => (p.memsetBytesPerS = v)),
  copyFixedNs: nonNegative((p, v) => (p.copyFixedNs = v)),
  copyEngineGapNs: nonNegative((p, v) => (p.copyEngineGapNs = v)),
  duplexFactor: positive((p, v) => (p.duplexFactor = Math.min(1, v))),
  duplexFactorDtoh: positive((p, v) => (p.duplexFactorDtoh = Math.min(1, v))),
  // 1: copies one way take turns on one engine per direction (the others serve peers).
  memcpyEnginesPerDirection: {
    min: 1,
    integer: true,
    apply: (p, v) => {
      const n = p.device.copyEngineCount;
      const roles: CopyEngineRole[] =
        n === 1 ? ['any'] : v === 1 ? ['htod', 'dtoh'] : ['htod', 'dtoh', 'any'];
      p.copyEngines = [
        ...roles,
        ...Array<CopyEngineRole>(Math.max(0, n - roles.length)).fill('peer'),
      ];
    },
  },
  'crossEngineGapNs.toCompute': nonNegative((p, v) => (p.crossEngineGapNs.toCompute = v)),
  'crossEngineGapNs.toCopy': nonNegative((p, v) => (p.crossEngineGapNs.toCopy = v)),
  eventRecordGapNs: nonNegative((p, v) => (p.eventRecordGapNs = v)),
  eventWaitGapNs: nonNegative((p, v) => (p.eventWaitGapNs = v)),
  'pageable.chunkBytes': positive((p, v) => (staging(p).chunkBytes = v)),
  'pageable.htodStagingBytesPerS': positive((p, v) => (staging(p).htodStagingBytesPerS = v)),
  'pageable.dtohStagingBytesPerS': positive((p, v) => (staging(p).dtohStagingBytesPerS = v)),
  mallocSyncs: flag((p, on) => (p.mallocSyncs = on)),
  freeSyncs: flag((p, on) => (p.freeSyncs = on)),
  // The first stream found sharing stream 0's hardware queue; 0: none did.
  connections: {
    min: 0,
    integer: true,
    apply: (p, v) => (p.connections = v === 0 ? p.hwQueues : v),
  },
};

/**
 * The profile `base` with `measured` applied (paths of `calibratedValues`). Readings that are
 * checks of the model rather than values (`check.*`) are skipped. Names the path that is wrong.
 */
export function applyMeasured(
  base: DeviceProfile,
  measured: Readonly<Record<string, unknown>>,
  path: string,
): DeviceProfile {
  const draft = structuredClone(base) as Draft;
  for (const [key, value] of Object.entries(measured)) {
    if (key.startsWith('check.')) {
      continue;
    }
    const rule = calibratedValues[key];
    if (rule === undefined) {
      throw new CalibrationError(`${path}["${key}"]: not a value calibrate measures`);
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < rule.min) {
      throw new CalibrationError(
        `${path}["${key}"]: expected a number ≥ ${rule.min === Number.MIN_VALUE ? 'above 0' : rule.min}, got ${JSON.stringify(value)}`,
      );
    }
    if (rule.integer === true && !Number.isInteger(value)) {
      throw new CalibrationError(`${path}["${key}"]: expected a whole number, got ${value}`);
    }
    try {
      rule.apply(draft, value);
    } catch (error) {
      throw new CalibrationError(`${path}["${key}"]: ${(error as Error).message}`);
    }
  }
  const p = draft.pageable;
  if (
    p !== null &&
    (p.chunkBytes <= 0 || p.htodStagingBytesPerS <= 0 || p.dtohStagingBytesPerS <= 0)
  ) {
    throw new CalibrationError(
      `${path}: pageable staging needs pageable.chunkBytes, pageable.htodStagingBytesPerS and pageable.dtohStagingBytesPerS together`,
    );
  }
  return draft;
}

/** The GPU a calibration ran on, as the executor's probe reports it. */
export interface CalibrationDevice {
  readonly name: string;
  readonly smCount: number;
  readonly copyEngineCount: number;
  readonly memoryBytes: number;
  readonly priorityRange: readonly [number, number];
  readonly computeCapability?: string;
}

/**
 * The profile `base` with a calibration's measured values, saying which values were measured
 * (device, driver, date) and which are inherited from `base`.
 */
export function applyCalibration(
  base: DeviceProfile,
  device: CalibrationDevice,
  measured: Readonly<Record<string, unknown>>,
  meta: {
    readonly driver: string;
    readonly date: string;
    readonly name: string;
    readonly title: string;
  },
): DeviceProfile {
  const withDevice: DeviceProfile = {
    ...base,
    device: {
      ...base.device,
      name: device.name,
      computeCapability: device.computeCapability ?? base.device.computeCapability,
      smCount: device.smCount,
      copyEngineCount: device.copyEngineCount,
      memoryBytes: device.memoryBytes,
      priorityRange: device.priorityRange,
    },
  };
  const profile = applyMeasured(withDevice, measured, '$.measured');
  const values = Object.keys(measured).filter((k) => !k.startsWith('check.'));
  return {
    ...profile,
    name: meta.name,
    title: meta.title,
    source: `streamscope calibrate on ${device.name} (driver ${meta.driver}, ${meta.date})`,
    provenance: {
      measured: { device: device.name, driver: meta.driver, date: meta.date, values },
      inherited: {
        from: base.name,
        values: Object.keys(calibratedValues).filter((k) => !values.includes(k)),
      },
    },
  };
}

export function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CalibrationError(`${path}: expected an object`);
  }
  return value as Record<string, unknown>;
}

function wholeNumber(obj: Record<string, unknown>, key: string, path: string, min: number): number {
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    throw new CalibrationError(
      `${path}.${key}: expected a whole number ≥ ${min}, got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

/** The calibration's device, checked; names the path that is wrong. */
export function parseDevice(value: unknown): CalibrationDevice {
  const device = record(value, '$.device');
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
  return {
    name,
    smCount: wholeNumber(device, 'smCount', '$.device', 1),
    copyEngineCount: wholeNumber(device, 'copyEngineCount', '$.device', 1),
    memoryBytes: wholeNumber(device, 'memoryBytes', '$.device', 1),
    priorityRange: [range[0] as number, range[1] as number],
    ...(cc !== undefined ? { computeCapability: cc } : {}),
  };
}
