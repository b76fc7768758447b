import type { Calibration, CalibrationDevice, DeviceProfile } from '@streamscope/simulator';
import { baseProfileFor, calibratedValues, simulate } from '@streamscope/simulator';
import type { Trace } from '@streamscope/trace';
import type { Plan } from '@streamscope/workload';
import { validateWorkload } from '@streamscope/workload';
import type { CudaBackend } from '../cuda/cuda-backend.ts';
import type { ProbeDevice } from '../cuda/protocol.ts';
import { unavailableReason } from '../cuda/protocol.ts';
import type { Benchmark } from './benchmarks.ts';
import { benchmarks } from './benchmarks.ts';
import type { Readings } from './readings.ts';
import { readBenchmark } from './readings.ts';
import { median } from './trace-view.ts';

/** What `streamscope calibrate` writes: the shape the simulator's profileFromCalibration reads. */
export type { Calibration };

/** The validated plan of a benchmark for a device. */
export function benchmarkPlan(bench: Benchmark, device: { readonly smCount: number }): Plan {
  const result = validateWorkload(bench.workload(device));
  if (!result.ok) {
    throw new Error(
      `benchmark ${bench.name}: ${result.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
  }
  return result.plan;
}

/**
 * Every benchmark's readings merged. A benchmark run in several rounds (separate processes: the
 * host's speed differs from one to the next) gives each value's median over its rounds. A
 * benchmark that fails to read is reported, not fatal.
 */
export function readAll(
  traces: ReadonlyMap<string, readonly Trace[]>,
  onError: (bench: string, message: string) => void = () => undefined,
): Readings {
  const measured: Readings = {};
  for (const bench of benchmarks) {
    const rounds: Readings[] = [];
    for (const trace of traces.get(bench.name) ?? []) {
      try {
        rounds.push(readBenchmark(bench.name, trace));
      } catch (error) {
        onError(bench.name, (error as Error).message);
      }
    }
    for (const key of new Set(rounds.flatMap((r) => Object.keys(r)))) {
      measured[key] = median(rounds.flatMap((r) => (key in r ? [r[key]!] : [])));
    }
  }
  return measured;
}

/** The calibration of a device from every benchmark's trace. */
export function calibrationFromTraces(
  traces: ReadonlyMap<string, readonly Trace[]>,
  device: CalibrationDevice,
  meta: { readonly driver: string; readonly date: string },
  onError?: (bench: string, message: string) => void,
): Calibration {
  const measured = readAll(traces, onError);
  const base = baseProfileFor(device.name);
  return {
    device,
    driver: meta.driver,
    date: meta.date,
    measured,
    inherited: {
      from: base.name,
      values: Object.keys(calibratedValues).filter((k) => !(k in measured)),
    },
  };
}

/** Runs every benchmark `rounds` times with `run` (a GPU, or the simulator); traces by name. */
export async function runBenchmarks(
  run: (plan: Plan) => Promise<Trace>,
  device: { readonly smCount: number },
  onTrace: (name: string, round: number, trace: Trace) => void = () => undefined,
  rounds = 1,
): Promise<Map<string, Trace[]>> {
  const traces = new Map<string, Trace[]>();
  for (let round = 0; round < rounds; round++) {
    for (const bench of benchmarks) {
      const trace = await run(benchmarkPlan(bench, device));
      traces.set(bench.name, [...(traces.get(bench.name) ?? []), trace]);
      onTrace(bench.name, round, trace);
    }
  }
  return traces;
}

/** What the benchmarks read on the simulator with `profile`: the self-check of the model. */
export function simulatedReadings(profile: DeviceProfile): Readings {
  const traces = new Map<string, Trace[]>();
  for (const bench of benchmarks) {
    traces.set(bench.name, [simulate(benchmarkPlan(bench, profile.device), profile)]);
  }
  return readAll(traces);
}

function toDevice(device: ProbeDevice): CalibrationDevice {
  return {
    name: device.name,
    smCount: device.smCount ?? 0,
    copyEngineCount: device.copyEngineCount ?? 0,
    memoryBytes: device.memoryBytes ?? 0,
    priorityRange: device.priorityRange ?? [0, 0],
    ...(device.computeCapability !== undefined
      ? { computeCapability: device.computeCapability }
      : {}),
  };
}

/** Runs every benchmark on a GPU and reads the calibration from their traces. */
export async function runCalibration(
  backend: CudaBackend,
  target: string | undefined,
  meta: { readonly driver?: string; readonly date: string },
  timeLimitMs = 60_000,
  onTrace?: (name: string, round: number, trace: Trace) => void,
  rounds = 3,
): Promise<{
  readonly calibration: Calibration;
  readonly traces: ReadonlyMap<string, readonly Trace[]>;
}> {
  const probe = await backend.probe();
  const reason = unavailableReason(probe);
  if (reason !== undefined) {
    throw new Error(reason);
  }
  const ordinal = target === undefined ? 0 : Number.parseInt(target, 10);
  const found = probe.cuda?.devices.find((d) => d.deviceId === ordinal);
  if (found === undefined) {
    throw new Error(`no CUDA device ${ordinal}`);
  }
  const device = toDevice(found);
  const driverApi = probe.cuda?.driverVersion ?? 0;
  const driver =
    meta.driver ?? `CUDA driver API ${Math.floor(driverApi / 1000)}.${(driverApi % 1000) / 10}`;
  const traces = await runBenchmarks(
    async (plan) => {
      const run = backend.startPlan(plan, {
        timeLimitMs,
        ...(target !== undefined ? { target } : {}),
      });
      const end = await run.done;
      if (end.status !== 'finished') {
        throw new Error(
          `calibration benchmark ${plan.name} ${end.status}${end.status === 'failed' ? `: ${end.reason}` : ''}`,
        );
      }
      return run.trace;
    },
    device,
    onTrace,
    rounds,
  );
  const problems: string[] = [];
  const calibration = calibrationFromTraces(
    traces,
    device,
    { driver, date: meta.date },
    (bench, message) => problems.push(`${bench}: ${message}`),
  );
  if (Object.keys(calibration.measured).length === 0) {
    throw new Error(`calibration measured nothing: ${problems.join('; ')}`);
  }
  return { calibration, traces };
}
