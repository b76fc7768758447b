import { applyCalibration, parseDevice } from './calibration-values.ts';
import h100Calibration from './calibrations/h100.json';
import h200Calibration from './calibrations/h200.json';
import type { LinkProfile } from './link-model.ts';
import { linkProfiles } from './link-model.ts';
import type { ApiCosts, DeviceProfile } from './profile.ts';

const GiB = 1024 ** 3;

// 2012-era hosts: CUDA 4/5 launch and copy calls took several µs.
const keplerEraApi: ApiCosts = {
  launchKernel: 5_000,
  memcpy: 5_000,
  memset: 4_000,
  eventRecord: 2_000,
  streamWait: 2_000,
  sync: 2_000,
  malloc: 100_000,
  mallocPerGiB: 0,
  free: 60_000,
  freePerGiB: 0,
  mallocHost: 300_000,
  pinBytesPerS: 4e9,
  mallocAsync: 3_000,
  launchHostFunc: 4_000,
  graphLaunch: 5_000,
  graphLaunchPerNode: 0,
  graphInstantiate: 30_000,
  graphInstantiatePerNode: 3_000,
};

// Measured on the project's H200 (research/native-executor.md): kernel launch 3.4–4.4 µs
// host-side; the rest are of the same order and stay estimates until calibrated.
const hopperApi: ApiCosts = {
  launchKernel: 4_000,
  memcpy: 4_000,
  memset: 3_000,
  eventRecord: 1_500,
  streamWait: 1_500,
  sync: 1_000,
  malloc: 25_000,
  mallocPerGiB: 0,
  free: 15_000,
  freePerGiB: 0,
  mallocHost: 200_000,
  pinBytesPerS: 10e9,
  mallocAsync: 1_500,
  launchHostFunc: 2_500,
  graphLaunch: 2_500,
  graphLaunchPerNode: 0,
  graphInstantiate: 10_000,
  graphInstantiatePerNode: 1_000,
};

/**
 * The mechanisms the blog's GPUs were never measured for, switched off: no extra gaps, one
 * pageable copy at the pageable rate, cudaMalloc and cudaFree both synchronize, no crowding.
 */
const unmeasuredMechanisms = {
  hostCallGapNs: 0,
  graphCallGapNs: 0,
  firstCallGapNs: 0,
  firstUseNs: {
    launchKernel: 0,
    memcpy: 0,
    memset: 0,
    eventRecord: 0,
    streamWait: 0,
    malloc: 0,
    mallocAsync: 0,
  },
  crossEngineGapNs: { toCompute: 0, toCopy: 0 },
  copyEngineGapNs: 0,
  eventRecordGapNs: 0,
  eventWaitGapNs: 0,
  pageable: null,
  mallocSyncs: true,
  freeSyncs: true,
  crowdedStartWarps: 0,
  crowdedStartNsPerWarp: 0,
  priorityWaitShare: 0,
  graphLaunchGapNs: 0,
  graphFirstLaunchExtraNs: 0,
} as const satisfies Partial<DeviceProfile>;

/*
 * The blog profiles (research/viewer-anchors.md §5). Its workload moves 16 MiB each way and
 * H2D ≈ kernel ≈ D2H, so each third of the sequential time is one 16 MiB copy:
 *   C1060 12.92 ms / 3 = 4.31 ms → 3.9 GB/s;  C2050 9.98 / 3 = 3.33 ms → 5.0 GB/s;
 *   K20c 7.10 / 3 = 2.37 ms → 7.1 GB/s.
 * workIterationsPerNs is set so the blog kernel (16384 blocks × 256 threads × 1000
 * iterations, full occupancy) takes that same third. SM limits are those of the compute
 * capability (1.3: 1024 threads and 8 blocks per SM; 2.0: 1536 and 8; 3.5: 2048 and 16).
 */
const c1060: DeviceProfile = {
  name: 'c1060',
  title: 'Tesla C1060 (CC 1.3): 1 copy engine, no concurrent kernels',
  source: 'NVIDIA blog "How to Overlap Data Transfers in CUDA C/C++" (2012) and CC 1.3 limits',
  device: {
    name: 'Tesla C1060',
    computeCapability: '1.3',
    smCount: 30,
    copyEngineCount: 1,
    memoryBytes: 4 * GiB,
    priorityRange: [0, 0],
    maxThreadsPerSm: 1024,
    maxBlocksPerSm: 8,
    sharedMemPerSmBytes: 16 * 1024,
  },
  hwQueues: 1,
  connections: 1,
  maxConcurrentKernels: 1,
  delayedKernelSignal: false,
  copyEngines: ['any'],
  copyBandwidthBytesPerS: {
    htodPinned: 3.95e9,
    htodPageable: 2.2e9,
    dtohPinned: 3.95e9,
    dtohPageable: 2.0e9,
    dtod: 70e9,
    ptop: 3e9,
    htoh: 4e9,
  },
  memsetBytesPerS: 80e9,
  duplexFactor: 1,
  duplexFactorDtoh: 1,
  copyFixedNs: 10_000,
  workIterationsPerNs: 0,
  workSaturationWarpsPerSm: 8,
  spinOffsetNs: 2_000,
  api: keplerEraApi,
  submitLatencyNs: 5_000,
  streamGapNs: 3_000,
  graphNodeGapNs: 2_000,
  hostFuncLatencyNs: 50_000,
  asyncAllocNs: 2_000,
  maxPendingLaunches: 1024,
  ...unmeasuredMechanisms,
};

const c2050: DeviceProfile = {
  ...c1060,
  name: 'c2050',
  title: 'Tesla C2050 (CC 2.0, Fermi): 2 copy engines, concurrent kernels, one compute queue',
  source: 'NVIDIA blog "How to Overlap Data Transfers in CUDA C/C++" (2012) and CC 2.0 limits',
  device: {
    name: 'Tesla C2050',
    computeCapability: '2.0',
    smCount: 14,
    copyEngineCount: 2,
    memoryBytes: 3 * GiB,
    priorityRange: [0, 0],
    maxThreadsPerSm: 1536,
    maxBlocksPerSm: 8,
    sharedMemPerSmBytes: 48 * 1024,
  },
  maxConcurrentKernels: 16,
  delayedKernelSignal: true,
  copyEngines: ['htod', 'dtoh'],
  copyBandwidthBytesPerS: {
    htodPinned: 5.1e9,
    htodPageable: 3e9,
    dtohPinned: 5.1e9,
    dtohPageable: 2.8e9,
    dtod: 110e9,
    ptop: 4e9,
    htoh: 5e9,
  },
  memsetBytesPerS: 120e9,
  duplexFactor: 0.8,
  duplexFactorDtoh: 0.8,
  workSaturationWarpsPerSm: 16,
};

const k20c: DeviceProfile = {
  ...c2050,
  name: 'k20c',
  title: 'Tesla K20c (CC 3.5, Kepler): 2 copy engines, Hyper-Q with 32 hardware queues',
  source: 'NVIDIA blog "How to Overlap Data Transfers in CUDA C/C++" (2012) and CC 3.5 limits',
  device: {
    name: 'Tesla K20c',
    computeCapability: '3.5',
    smCount: 13,
    copyEngineCount: 2,
    memoryBytes: 5 * GiB,
    priorityRange: [-1, 0],
    maxThreadsPerSm: 2048,
    maxBlocksPerSm: 16,
    sharedMemPerSmBytes: 48 * 1024,
  },
  hwQueues: 32,
  connections: 8,
  maxConcurrentKernels: 32,
  delayedKernelSignal: false,
  copyBandwidthBytesPerS: {
    htodPinned: 7.2e9,
    htodPageable: 4e9,
    dtohPinned: 7.2e9,
    dtohPageable: 3.8e9,
    dtod: 150e9,
    ptop: 6e9,
    htoh: 6e9,
  },
  memsetBytesPerS: 170e9,
  duplexFactor: 0.8,
  duplexFactorDtoh: 0.8,
  workSaturationWarpsPerSm: 32,
};

/*
 * Hopper, from research/native-executor.md [measured on H200]: 3 async copy engines; pinned
 * H2D 51.6 GB/s and D2H 51.3 GB/s at the same time (no duplex loss); pageable H2D 8.4 GB/s;
 * memset 256 MiB in 0.067 ms (≈4 TB/s) and D2D 256 MiB in 0.129 ms (≈2.1 TB/s), both on SMs;
 * timed kernels +0.6 µs; host callbacks start p50 108 µs after the stream reaches them.
 * workIterationsPerNs: the executor's FMA-chain kernel runs one dependent FMA (≈4 cycles at
 * 1.98 GHz) per iteration, ≈0.5 per ns per thread. What `streamscope calibrate` does not
 * measure is inherited from here; the shipped h100 and h200 are these with their calibrations.
 */
const hopper: DeviceProfile = {
  name: 'hopper',
  title: 'Hopper (CC 9.0) estimates: 3 copy engines, Hyper-Q',
  source: 'research/native-executor.md probe measurements (H200, driver 580, CUDA 13.0)',
  device: {
    name: 'NVIDIA H200',
    computeCapability: '9.0',
    smCount: 132,
    copyEngineCount: 3,
    memoryBytes: 141 * 1e9,
    priorityRange: [-5, 0],
    maxThreadsPerSm: 2048,
    maxBlocksPerSm: 32,
    sharedMemPerSmBytes: 228 * 1024,
  },
  hwQueues: 32,
  connections: 8,
  maxConcurrentKernels: 128,
  delayedKernelSignal: false,
  copyEngines: ['htod', 'dtoh', 'any'],
  copyBandwidthBytesPerS: {
    htodPinned: 51.6e9,
    htodPageable: 8.4e9,
    dtohPinned: 51.3e9,
    dtohPageable: 8.0e9,
    dtod: 2.08e12,
    ptop: 40e9,
    htoh: 10e9,
  },
  memsetBytesPerS: 4.0e12,
  duplexFactor: 1,
  duplexFactorDtoh: 1,
  copyFixedNs: 2_000,
  workIterationsPerNs: 0.5,
  workSaturationWarpsPerSm: 16,
  spinOffsetNs: 600,
  api: hopperApi,
  submitLatencyNs: 3_000,
  streamGapNs: 1_000,
  graphNodeGapNs: 500,
  hostFuncLatencyNs: 108_000,
  asyncAllocNs: 1_000,
  maxPendingLaunches: 1024,
  ...unmeasuredMechanisms,
  // An HGX board: 8 SXM GPUs on NVSwitch (link-model.ts).
  links: linkProfiles['nvlink4-x8'],
};

// H100 SXM, every mechanism calibrated on the project's H100 (fixtures/runs/calibration-h100.json).
const h100: DeviceProfile = applyCalibration(
  hopper,
  parseDevice(h100Calibration.device),
  h100Calibration.measured,
  {
    driver: h100Calibration.driver,
    date: h100Calibration.date,
    name: 'h100',
    title: 'H100 (CC 9.0): 2 memcpy engines, Hyper-Q; calibrated on an H100 80GB HBM3',
  },
);

// H200, every mechanism calibrated on the project's H200 (fixtures/runs/calibration-h200.json).
const h200: DeviceProfile = applyCalibration(
  hopper,
  parseDevice(h200Calibration.device),
  h200Calibration.measured,
  {
    driver: h200Calibration.driver,
    date: h200Calibration.date,
    name: 'h200',
    title: 'H200 (CC 9.0): 2 memcpy engines, Hyper-Q; calibrated on an H200',
  },
);

/** The same GPU on a host with `links` between its GPUs (collectives, send/recv). */
function onHost(base: DeviceProfile, name: string, links: LinkProfile): DeviceProfile {
  const gpu = base.device.name.replace(/^NVIDIA /, '');
  return {
    ...base,
    name,
    title: `${links.gpusPerHost} × ${gpu} over ${links.fabric}`,
    source: `${base.source}; links: link-model.ts (${links.name})`,
    links,
  };
}

/** Work-rate that makes the blog kernel take `thirdMs` on a profile (see the note above). */
function blogRate(profile: DeviceProfile, thirdMs: number): number {
  const { smCount, maxThreadsPerSm, maxBlocksPerSm } = profile.device;
  const blocksPerSm = Math.min(maxBlocksPerSm, Math.floor(maxThreadsPerSm / 256));
  const waves = Math.ceil(16_384 / (smCount * blocksPerSm));
  const warpsPerSm = (blocksPerSm * 256) / 32;
  const slowdown = Math.max(1, warpsPerSm / profile.workSaturationWarpsPerSm);
  // waves × 1000 iterations × slowdown / rate = thirdMs
  return (waves * 1000 * slowdown) / (thirdMs * 1e6);
}

/** Built-in device profiles by name. */
export const deviceProfiles: Readonly<
  Record<
    | 'c1060'
    | 'c2050'
    | 'k20c'
    | 'h100'
    | 'h200'
    | 'h100x2'
    | 'h100x4'
    | 'h100x8'
    | 'h200x2'
    | 'h200x4'
    | 'h200x8'
    | 'h100-pcie-x4',
    DeviceProfile
  >
> = {
  c1060: { ...c1060, workIterationsPerNs: blogRate(c1060, 12.92381 / 3) },
  c2050: { ...c2050, workIterationsPerNs: blogRate(c2050, 9.984512 / 3) },
  k20c: { ...k20c, workIterationsPerNs: blogRate(k20c, 7.10176 / 3) },
  h100,
  h200,
  h100x2: onHost(h100, 'h100x2', linkProfiles['nvlink4-x2']),
  h100x4: onHost(h100, 'h100x4', linkProfiles['nvlink4-x4']),
  h100x8: onHost(h100, 'h100x8', linkProfiles['nvlink4-x8']),
  h200x2: onHost(h200, 'h200x2', linkProfiles['nvlink4-x2-h200']),
  h200x4: onHost(h200, 'h200x4', linkProfiles['nvlink4-x4']),
  h200x8: onHost(h200, 'h200x8', linkProfiles['nvlink4-x8']),
  // The H100's SMs and engines with its GPUs on PCIe only (no NVLink bridge or switch).
  'h100-pcie-x4': onHost(h100, 'h100-pcie-x4', linkProfiles['pcie5-x4']),
};

export type ProfileName = keyof typeof deviceProfiles;

/** A built-in profile, or undefined for an unknown name. */
export function findProfile(name: string): DeviceProfile | undefined {
  return Object.hasOwn(deviceProfiles, name) ? deviceProfiles[name as ProfileName] : undefined;
}
