import type { Trace } from '@streamscope/trace';
import { linkApiCalls } from './api-links.ts';
import type { AnalysisContext } from './context.ts';
import { Engine, engineOfKind, isCopyEngine, noEngine } from './engines.ts';
import { enqueuedBlocking, nameFlagsOf } from './host-calls.ts';
import { mergeSorted, sortIfNeeded } from './intervals.ts';
import type { Distribution, LaunchLatencyMetrics, LaunchLinkMismatch } from './types.ts';

/** Distribution of values already sorted ascending. */
function distributionOfSorted(values: Float64Array): Distribution {
  const n = values.length;
  if (n === 0) {
    return { count: 0, meanNs: 0, minNs: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, maxNs: 0 };
  }
  let total = 0;
  for (let k = 0; k < n; k++) {
    total += values[k]!;
  }
  // Nearest-rank percentiles: the smallest value with at least p% of values at or below it.
  const rank = (p: number): number => values[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))]!;
  return {
    count: n,
    meanNs: total / n,
    minNs: values[0]!,
    p50Ns: rank(0.5),
    p90Ns: rank(0.9),
    p99Ns: rank(0.99),
    maxNs: values[n - 1]!,
  };
}

/**
 * Launch latency of one op (HTA's launch delay). A call that returns once the work is queued
 * (kernel launches, async copies on pinned memory, cudaMemsetAsync, graph launches) counts from
 * its end: GPU start − call end, clipped at 0, so a launch whose kernel began before the call
 * returned has latency 0, not the call's own time. A blocking call (`enqueuedBlocking`:
 * cudaMemcpy, pageable copies, cudaMemset) returns only after its op began, so it counts from
 * the call's start.
 */
export function launchLatencyOfNs(
  gpuStartNs: number,
  apiStartNs: number,
  apiEndNs: number,
  blocking: boolean,
): number {
  return Math.max(0, gpuStartNs - (blocking ? apiStartNs : apiEndNs));
}

export function launchLatency(ctx: AnalysisContext): LaunchLatencyMetrics {
  const { walk } = ctx;
  const total = walk.op.length;
  let kernels = 0;
  let copies = 0;
  let others = 0;
  for (let p = 0; p < total; p++) {
    const e = engineOfKind(walk.kind[p]!);
    if (e === noEngine || Number.isNaN(walk.apiEndNs[p]!)) {
      continue;
    }
    if (e === Engine.Compute) {
      kernels++;
    } else if (isCopyEngine(e)) {
      copies++;
    } else {
      others++;
    }
  }
  const otherNs = new Float64Array(others);
  const kernelNs = new Float64Array(kernels);
  const copyNs = new Float64Array(copies);
  let o = 0;
  let k = 0;
  let c = 0;
  for (let p = 0; p < total; p++) {
    const e = engineOfKind(walk.kind[p]!);
    const apiEndNs = walk.apiEndNs[p]!;
    if (e === noEngine || Number.isNaN(apiEndNs)) {
      continue;
    }
    const blocking = ctx.blockingOf[walk.op[p]!] === 1;
    const latencyNs = launchLatencyOfNs(walk.startNs[p]!, walk.apiStartNs[p]!, apiEndNs, blocking);
    if (e === Engine.Compute) {
      kernelNs[k++] = latencyNs;
    } else if (isCopyEngine(e)) {
      copyNs[c++] = latencyNs;
    } else {
      otherNs[o++] = latencyNs;
    }
  }
  // Sort the parts once and merge them for the whole (linear), rather than sorting twice.
  sortIfNeeded(kernelNs);
  sortIfNeeded(copyNs);
  sortIfNeeded(otherNs);
  const all = mergeSorted([kernelNs, copyNs, otherNs]);
  const linksDisagree = linkMismatch(
    all,
    ctx.gpuToNs - ctx.gpuFromNs,
    ctx.options.maxLaunchLatencyNs,
  );
  if (linksDisagree !== null) {
    const none = distributionOfSorted(new Float64Array(0));
    return { all: none, kernels: none, copies: none, linksDisagree };
  }
  return {
    all: distributionOfSorted(all),
    kernels: distributionOfSorted(kernelNs),
    copies: distributionOfSorted(copyNs),
    linksDisagree: null,
  };
}

const minImpossibleOps = 3;

/**
 * A queued op starts at most the GPU span after its call returned, give or take one launch
 * latency: the call ends before the first GPU op starts only by that op's own latency. When most
 * links are longer than that, no queue explains them: the clocks or correlation ids disagree.
 * `sortedNs` ascending.
 */
export function linkMismatch(
  sortedNs: Float64Array,
  gpuSpanNs: number,
  maxLaunchLatencyNs: number,
): LaunchLinkMismatch | null {
  const n = sortedNs.length;
  if (n === 0) {
    return null;
  }
  const limitNs = gpuSpanNs + maxLaunchLatencyNs;
  let impossibleOps = 0;
  for (let k = n - 1; k >= 0 && sortedNs[k]! > limitNs; k--) {
    impossibleOps++;
  }
  // Most links, and more than a couple (one late first launch can be module loading).
  if (2 * impossibleOps <= n || impossibleOps < minImpossibleOps) {
    return null;
  }
  const d = distributionOfSorted(sortedNs);
  return { linkedOps: n, impossibleOps, maxNs: d.maxNs, p50Ns: d.p50Ns, gpuSpanNs };
}

/** Per op: its launch latency (`launchLatencyOfNs`), in ns; NaN where no call is known. */
export function launchLatencies(trace: Trace): Float64Array {
  const cols = trace.ops.columns();
  const { apiOf } = linkApiCalls(trace, cols);
  const nameFlags = nameFlagsOf(trace.strings);
  const out = new Float64Array(cols.count).fill(NaN);
  for (let i = 0; i < cols.count; i++) {
    const api = apiOf[i]!;
    if (api >= 0) {
      const blocking = enqueuedBlocking(cols, nameFlags, i, api);
      out[i] = launchLatencyOfNs(cols.startNs[i]!, cols.startNs[api]!, cols.endNs[api]!, blocking);
    }
  }
  return out;
}
