import type { Trace } from '@streamscope/trace';
import { MemKind, OpKind, dstMemKind, srcMemKind } from '@streamscope/trace';
import type { Calibration } from '@streamscope/simulator';
import type { Plan } from '@streamscope/workload';
import type { CudaBackend } from '../cuda/cuda-backend.ts';
import type { ProbeDevice } from '../cuda/protocol.ts';
import { unavailableReason } from '../cuda/protocol.ts';
import { PlanBuilder } from './plan-builder.ts';

/** What `streamscope calibrate` prints: the shape the simulator's profileFromCalibration reads. */
export type { Calibration };

const copyBytes = 64 * 1024 * 1024;
const reps = 5;
const spinShortNs = 10_000;
const spinLongNs = 1_000_000;
const workSmall = 20_000;
const workLarge = 200_000;

/** One sequential plan: every step alone on an idle GPU (a stream sync after each). */
export function calibrationPlan(): Plan {
  const b = new PlanBuilder('calibration');
  const pinned = b.buffer('pinned', 'host-pinned', copyBytes);
  const pageable = b.buffer('pageable', 'host-pageable', copyBytes);
  const d1 = b.buffer('d1', 'device', copyBytes);
  const d2 = b.buffer('d2', 'device', copyBytes);
  const s = b.stream('calibration');
  b.kernel(s, 'warm-up', spinShortNs).sync(s);
  b.workKernel(s, 'warm-up', workSmall).sync(s);
  for (const [dst, src] of [
    [d1, pinned],
    [d1, pageable],
    [pinned, d1],
    [pageable, d1],
    [d2, d1],
  ] as const) {
    b.copy(s, dst, src, copyBytes).sync(s);
  }
  for (let i = 0; i < 30; i++) {
    b.kernel(s, 'launch', spinShortNs).sync(s);
  }
  for (let i = 0; i < reps * 2; i++) {
    b.kernel(s, 'spin-short', spinShortNs).sync(s);
    b.kernel(s, 'spin-long', spinLongNs).sync(s);
  }
  for (let i = 0; i < reps; i++) {
    b.workKernel(s, 'work-small', workSmall).sync(s);
    b.workKernel(s, 'work-large', workLarge).sync(s);
  }
  for (let i = 0; i < reps; i++) {
    b.copy(s, d1, pinned, copyBytes).sync(s);
    b.copy(s, d1, pageable, copyBytes).sync(s);
    b.copy(s, pinned, d1, copyBytes).sync(s);
    b.copy(s, pageable, d1, copyBytes).sync(s);
    b.copy(s, d2, d1, copyBytes).sync(s);
  }
  return b.build();
}

function median(values: readonly number[]): number {
  if (values.length === 0) {
    return Number.NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Reads the figures out of a finished calibration run's trace. */
export function calibrationFromTrace(trace: Trace, device: ProbeDevice): Calibration {
  const ops = trace.ops.columns();
  const kernels = new Map<string, number[]>();
  const launches: number[] = [];
  const copies = {
    htodPinned: [],
    htodPageable: [],
    dtohPinned: [],
    dtohPageable: [],
    dtod: [],
  } as Record<keyof Calibration['copyBandwidthBytesPerS'], number[]>;
  for (let i = 0; i < ops.count; i++) {
    const durNs = ops.endNs[i]! - ops.startNs[i]!;
    const kind = ops.kind[i]!;
    const name = trace.strings.get(ops.nameId[i]!);
    if (kind === OpKind.Kernel) {
      kernels.set(name, [...(kernels.get(name) ?? []), durNs]);
    } else if (kind === OpKind.ApiCall && name === 'cudaLaunchKernel') {
      launches.push(durNs);
    } else if (durNs > 0 && ops.bytes[i] === copyBytes) {
      const rate = (copyBytes / durNs) * 1e9;
      const src = srcMemKind(ops.memKinds[i]!);
      const dst = dstMemKind(ops.memKinds[i]!);
      if (kind === OpKind.CopyHtoD) {
        (src === MemKind.Pinned ? copies.htodPinned : copies.htodPageable).push(rate);
      } else if (kind === OpKind.CopyDtoH) {
        (dst === MemKind.Pinned ? copies.dtohPinned : copies.dtohPageable).push(rate);
      } else if (kind === OpKind.CopyDtoD) {
        copies.dtod.push(rate);
      }
    }
  }
  const k = (name: string): number[] => kernels.get(name) ?? [];
  const spinOffsets = [
    ...k('spin-short').map((d) => d - spinShortNs),
    ...k('spin-long').map((d) => d - spinLongNs),
  ];
  const workSlopeNs = median(k('work-large')) - median(k('work-small'));
  const result: Calibration = {
    device: {
      name: device.name,
      smCount: device.smCount ?? 0,
      copyEngineCount: device.copyEngineCount ?? 0,
      memoryBytes: device.memoryBytes ?? 0,
      priorityRange: device.priorityRange ?? [0, 0],
      ...(device.computeCapability !== undefined
        ? { computeCapability: device.computeCapability }
        : {}),
    },
    // The first launches pay for module loading: the median of the later ones.
    launchLatencyNs: Math.round(median(launches.slice(2))),
    copyBandwidthBytesPerS: {
      htodPinned: median(copies.htodPinned),
      htodPageable: median(copies.htodPageable),
      dtohPinned: median(copies.dtohPinned),
      dtohPageable: median(copies.dtohPageable),
      dtod: median(copies.dtod),
    },
    workIterationsPerNs: (workLarge - workSmall) / workSlopeNs,
    spinOffsetNs: Math.round(median(spinOffsets)),
  };
  const missing = Object.entries({
    ...result.copyBandwidthBytesPerS,
    launch: result.launchLatencyNs,
    work: result.workIterationsPerNs,
  })
    .filter(([, v]) => !Number.isFinite(v) || v <= 0)
    .map(([key]) => key);
  if (!Number.isFinite(result.spinOffsetNs)) {
    missing.push('spinOffsetNs');
  }
  if (missing.length > 0) {
    throw new Error(`calibration run lacks measurements for: ${missing.join(', ')}`);
  }
  return result;
}

/** Runs the calibration plan on a GPU and reads the figures from its trace. */
export async function runCalibration(
  backend: CudaBackend,
  target: string | undefined,
  timeLimitMs = 120_000,
): Promise<{ readonly calibration: Calibration; readonly trace: Trace }> {
  const probe = await backend.probe();
  const reason = unavailableReason(probe);
  if (reason !== undefined) {
    throw new Error(reason);
  }
  const ordinal = target === undefined ? 0 : Number.parseInt(target, 10);
  const device = probe.cuda?.devices.find((d) => d.deviceId === ordinal);
  if (device === undefined) {
    throw new Error(`no CUDA device ${ordinal}`);
  }
  const run = backend.startPlan(calibrationPlan(), {
    timeLimitMs,
    ...(target !== undefined ? { target } : {}),
  });
  const end = await run.done;
  if (end.status !== 'finished') {
    throw new Error(
      `calibration run ${end.status}${end.status === 'failed' ? `: ${end.reason}` : ''}`,
    );
  }
  return { calibration: calibrationFromTrace(run.trace, device), trace: run.trace };
}
