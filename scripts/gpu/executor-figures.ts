// The executor's GPU benchmark figures, shared by `pnpm bench` (scripts/bench/executor.bench.ts)
// and the device runner. Each ratio is measured within one call, on one device.
import { performance } from 'node:perf_hooks';
import type { CudaBackend, CudaBackendOptions } from '@streamscope/executor';
import { PlanBuilder, measureCopyBandwidth } from '@streamscope/executor';
import { OpKind } from '@streamscope/trace';
import { buildPreset, validateWorkload } from '@streamscope/workload';

export type Report = (name: string, value: number, unit: string) => void;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Median makespans of a preset with collection on and off, runs alternating. */
async function makespans(
  backend: CudaBackend,
  params: Readonly<Record<string, string>>,
  runs: number,
): Promise<{ onNs: number; offNs: number }> {
  const validated = validateWorkload(buildPreset('pipeline', params));
  if (!validated.ok) {
    throw new Error('pipeline preset does not validate');
  }
  const on: number[] = [];
  const off: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const timing of ['auto', 'none'] as const) {
      const run = backend.startPlan(validated.plan, { timeLimitMs: 60_000 }, { timing });
      const end = await run.done;
      if (end.status !== 'finished') {
        throw new Error(
          `pipeline run ${timing}: ${end.status === 'failed' ? end.reason : end.status}`,
        );
      }
      (timing === 'auto' ? on : off).push(run.nativeStatus?.makespanNs ?? Number.NaN);
    }
  }
  return { onNs: median(on), offNs: median(off) };
}

/**
 * executor.collection_overhead: chunked-pipeline makespan with collection on ÷ off (preset
 * defaults, about 2 ms on an H100, so per-call costs show); the same for a 256 MiB pipeline.
 */
export async function collectionOverhead(
  backend: CudaBackend,
  report: Report,
  runs = 21,
): Promise<void> {
  const small = await makespans(backend, {}, runs);
  report('executor.collection_overhead', small.onNs / small.offNs, 'ratio');
  report('executor.pipeline_makespan_collection_on_ms', small.onNs / 1e6, 'ms');
  report('executor.pipeline_makespan_collection_off_ms', small.offNs / 1e6, 'ms');
  const large = await makespans(backend, { size: '256MiB', chunks: '16' }, runs);
  report('executor.collection_overhead_pipeline_256MiB', large.onNs / large.offNs, 'ratio');
  report('executor.pipeline_256MiB_makespan_collection_on_ms', large.onNs / 1e6, 'ms');
}

/** executor.{h2d,d2h}_fraction_of_peak: traced pinned copies vs a plain cudaMemcpy loop. */
export async function copyFractions(
  backend: CudaBackend,
  options: CudaBackendOptions,
  report: Report,
): Promise<void> {
  const bytes = 256 * 1024 * 1024;
  const b = new PlanBuilder('pinned copies');
  const host = b.buffer('pinned', 'host-pinned', bytes);
  const dev = b.buffer('device', 'device', bytes);
  const s = b.stream('copies');
  for (let i = 0; i < 8; i++) {
    b.copy(s, dev, host, bytes).sync(s);
    b.copy(s, host, dev, bytes).sync(s);
  }
  const run = backend.startPlan(b.build(), { timeLimitMs: 60_000 });
  const end = await run.done;
  if (end.status !== 'finished') {
    throw new Error(`copy run: ${end.status === 'failed' ? end.reason : end.status}`);
  }
  const ops = run.trace.ops.columns();
  const rate = { htod: [] as number[], dtoh: [] as number[] };
  for (let i = 0; i < ops.count; i++) {
    const durNs = ops.endNs[i]! - ops.startNs[i]!;
    if (ops.kind[i] === OpKind.CopyHtoD) {
      rate.htod.push((bytes / durNs) * 1e9);
    } else if (ops.kind[i] === OpKind.CopyDtoH) {
      rate.dtoh.push((bytes / durNs) * 1e9);
    }
  }
  for (const direction of ['htod', 'dtoh'] as const) {
    const peak = await measureCopyBandwidth(options, {
      direction,
      pinned: true,
      bytes,
      reps: 8,
      device: 0,
    });
    const traced = median(rate[direction]);
    const label = direction === 'htod' ? 'h2d' : 'd2h';
    report(`executor.${label}_fraction_of_peak`, traced / peak, 'ratio');
    report(`executor.${label}_traced_GBps`, traced / 1e9, 'GB/s');
    report(`executor.${label}_memcpy_loop_GBps`, peak / 1e9, 'GB/s');
  }
}

/** executor.delivery_latency_{p50,max}_ms: a kernel's end to its record in JS (this process). */
export async function deliveryLatency(backend: CudaBackend, report: Report): Promise<void> {
  const b = new PlanBuilder('delivery latency');
  const s = b.stream('s');
  for (let i = 0; i < 200; i++) {
    b.kernel(s, 'tick', 50_000).hostWork('gap', 5_000_000);
  }
  const run = backend.startPlan(b.build(), { timeLimitMs: 60_000 });
  const latenciesNs: number[] = [];
  let seen = 0;
  run.onUpdate(() => {
    // CUPTI's clock is CLOCK_REALTIME's domain; so is timeOrigin + now() (to within µs).
    const nowNs = (performance.timeOrigin + performance.now()) * 1e6;
    const origin = Number(run.trace.meta.originNs);
    const ops = run.trace.ops.columns();
    for (; seen < ops.count; seen++) {
      if (ops.kind[seen] === OpKind.Kernel) {
        latenciesNs.push(nowNs - (origin + ops.endNs[seen]!));
      }
    }
  });
  const end = await run.done;
  if (end.status !== 'finished' || latenciesNs.length === 0) {
    throw new Error(`latency run: ${end.status === 'failed' ? end.reason : end.status}`);
  }
  report('executor.delivery_latency_p50_ms', quantile(latenciesNs, 0.5) / 1e6, 'ms');
  report('executor.delivery_latency_max_ms', Math.max(...latenciesNs) / 1e6, 'ms');
  report('executor.delivery_latency_records', latenciesNs.length, 'records');
}
