import type { TraceMeta } from '../meta.ts';
import type { DeviceInfo, ProcessInfo, TrackInfo } from '../tracks.ts';
import { streamTypes } from '../tracks.ts';

/** Checks JSON-decoded metadata and structure, naming the JSON path of the first problem. */
export class ShapeError extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: string, problem: string): never {
  throw new ShapeError(`${path}: ${problem}`);
}

function obj(value: unknown, path: string): Json {
  if (!isObject(value)) {
    fail(path, 'expected an object');
  }
  return value;
}

function str(o: Json, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== 'string') {
    fail(`${path}.${key}`, 'expected a string');
  }
  return v;
}

function int(o: Json, key: string, path: string, min = -(2 ** 53), max = 2 ** 53): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    fail(`${path}.${key}`, `expected an integer in [${min}, ${max}]`);
  }
  return v;
}

function optNum(o: Json, key: string, path: string): void {
  const v = o[key];
  if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
    fail(`${path}.${key}`, 'expected a non-negative number');
  }
}

function optStr(o: Json, key: string, path: string): void {
  if (o[key] !== undefined && typeof o[key] !== 'string') {
    fail(`${path}.${key}`, 'expected a string');
  }
}

function arr(o: Json, key: string, path: string): unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) {
    fail(`${path}.${key}`, 'expected an array');
  }
  return v;
}

const sourceFormats = [
  'streamscope-cuda',
  'streamscope-sim',
  'nsys-json',
  'nsys-sqlite',
  'chrome-trace',
  'streamscope-trace',
];
const timingMethods = ['cupti', 'events', 'sim', 'imported'];

export function checkMeta(value: unknown): TraceMeta {
  const o = obj(value, '$');
  str(o, 'title', '$');
  if (!sourceFormats.includes(str(o, 'sourceFormat', '$'))) {
    fail('$.sourceFormat', `expected one of ${sourceFormats.join(', ')}`);
  }
  str(o, 'producer', '$');
  if (!timingMethods.includes(str(o, 'timingMethod', '$'))) {
    fail('$.timingMethod', `expected one of ${timingMethods.join(', ')}`);
  }
  if (!/^-?\d{1,20}$/.test(str(o, 'originNs', '$'))) {
    fail('$.originNs', 'expected a decimal integer string');
  }
  if (o.clockEpochNs !== undefined && !/^-?\d{1,20}$/.test(str(o, 'clockEpochNs', '$'))) {
    fail('$.clockEpochNs', 'expected a decimal integer string');
  }
  if (o.distributed !== undefined) {
    const d = obj(o.distributed, '$.distributed');
    int(d, 'rank', '$.distributed', 0, 1 << 24);
    int(d, 'worldSize', '$.distributed', 1, 1 << 24);
    str(d, 'backend', '$.distributed');
  }
  optStr(o, 'createdAt', '$');
  optStr(o, 'profile', '$');
  optStr(o, 'preset', '$');
  if (o.warnings !== undefined) {
    arr(o, 'warnings', '$').forEach((w, i) => {
      if (typeof w !== 'string') {
        fail(`$.warnings[${i}]`, 'expected a string');
      }
    });
  }
  return o as unknown as TraceMeta;
}

export function checkDevice(value: unknown, path: string): DeviceInfo {
  const o = obj(value, path);
  int(o, 'deviceId', path, 0, 1 << 20);
  str(o, 'name', path);
  for (const key of [
    'smCount',
    'copyEngineCount',
    'memoryBytes',
    'clockRateKHz',
    'memoryBandwidthBytesPerS',
  ]) {
    optNum(o, key, path);
  }
  optStr(o, 'computeCapability', path);
  optStr(o, 'pciBusId', path);
  if (o.priorityRange !== undefined) {
    const r = o.priorityRange;
    if (!Array.isArray(r) || r.length !== 2 || !r.every((x) => Number.isInteger(x))) {
      fail(`${path}.priorityRange`, 'expected [greatest, least] integers');
    }
  }
  return o as unknown as DeviceInfo;
}

/** Ranks are optional (traces before ranks have none); present, a rank is an index. */
function optRank(o: Json, path: string): void {
  if (o.rank !== undefined) {
    int(o, 'rank', path, 0, 1 << 24);
  }
}

export function checkProcess(value: unknown, path: string): ProcessInfo {
  const o = obj(value, path);
  int(o, 'pid', path);
  str(o, 'name', path);
  optRank(o, path);
  return o as unknown as ProcessInfo;
}

export function checkTrack(value: unknown, path: string): TrackInfo {
  const o = obj(value, path);
  const kind = str(o, 'kind', path);
  str(o, 'name', path);
  int(o, 'pid', path);
  optRank(o, path);
  if (kind === 'host-thread') {
    int(o, 'tid', path);
  } else if (kind === 'gpu-stream') {
    int(o, 'deviceId', path, 0, 1 << 20);
    int(o, 'contextId', path);
    int(o, 'streamId', path);
    int(o, 'priority', path);
    const streamType = str(o, 'streamType', path);
    if (!(streamTypes as readonly string[]).includes(streamType)) {
      fail(`${path}.streamType`, `expected one of ${streamTypes.join(', ')}`);
    }
  } else {
    fail(`${path}.kind`, "expected 'gpu-stream' or 'host-thread'");
  }
  return o as unknown as TrackInfo;
}

export interface StructurePayload {
  readonly firstDevice: number;
  readonly devices: DeviceInfo[];
  readonly firstProcess: number;
  readonly processes: ProcessInfo[];
  readonly firstTrack: number;
  readonly tracks: TrackInfo[];
}

export function checkStructure(value: unknown): StructurePayload {
  const o = obj(value, '$');
  int(o, 'firstDevice', '$', 0);
  int(o, 'firstProcess', '$', 0);
  int(o, 'firstTrack', '$', 0);
  const devices = arr(o, 'devices', '$').map((d, i) => checkDevice(d, `$.devices[${i}]`));
  const processes = arr(o, 'processes', '$').map((p, i) => checkProcess(p, `$.processes[${i}]`));
  const tracks = arr(o, 'tracks', '$').map((t, i) => checkTrack(t, `$.tracks[${i}]`));
  return {
    firstDevice: o.firstDevice as number,
    devices,
    firstProcess: o.firstProcess as number,
    processes,
    firstTrack: o.firstTrack as number,
    tracks,
  };
}
