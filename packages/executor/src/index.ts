export type {
  Backend,
  BackendChoice,
  BackendName,
  BackendStatus,
  RunEnd,
  RunHandle,
  RunRequest,
} from './backend.ts';
export { LiveRun } from './live-run.ts';
export { InvalidRunRequest } from './invalid-request.ts';
export type { RequestIssue } from './invalid-request.ts';
export { ReplayBackend } from './replay-backend.ts';
export type { ReplaySource } from './replay-source.ts';
export { replaySourceBuffers, replaySourceBytes, replaySourceOf } from './replay-source.ts';
export { CudaBackend, CudaRun, executorProducer } from './cuda/cuda-backend.ts';
export type { CudaBackendOptions, CudaRunOptions } from './cuda/cuda-backend.ts';
export { defaultAddonPath } from './cuda/addon-path.ts';
export { defaultChildScript, measureCopyBandwidth, probeInChild } from './cuda/executor-process.ts';
export type { CopyLoopOptions, ExecutorProcessOptions } from './cuda/executor-process.ts';
export type { NativeStatus, ProbeDevice, ProbeReport } from './cuda/protocol.ts';
export { unavailableReason } from './cuda/protocol.ts';
export { PlanBuilder } from './calibrate/plan-builder.ts';
export {
  benchmarkPlan,
  calibrationFromTraces,
  readAll,
  runBenchmarks,
  runCalibration,
  simulatedReadings,
} from './calibrate/calibrate.ts';
export { benchmarks } from './calibrate/benchmarks.ts';
export type { Benchmark, BenchmarkDevice } from './calibrate/benchmarks.ts';
export { readBenchmark } from './calibrate/readings.ts';
export type { Readings } from './calibrate/readings.ts';
export type { Calibration } from './calibrate/calibrate.ts';
export { SimBackend } from './sim-backend.ts';
export type { SimBackendOptions } from './sim-backend.ts';
export { createBackends, resolveAuto } from './create-backends.ts';
export type { BackendOptions } from './create-backends.ts';
