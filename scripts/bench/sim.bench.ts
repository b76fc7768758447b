import { deviceProfiles, simulate } from '@streamscope/simulator';
import { PerformanceObserver } from 'node:perf_hooks';
import process from 'node:process';
import type { Plan } from '@streamscope/workload';
import { buildPreset, chunkRingWorkload, validateWorkload } from '@streamscope/workload';
import type { Report } from './report.ts';
import { medianMs } from './report.ts';

// Simulator speed: a pipeline of small copies and kernels over 8 streams with an event hand-off
// per chunk, at 10k, 100k and 1M ops. ns per op should stay flat as the run grows. The 1M case
// also reports CPU time and the garbage collector's share (the retained plan makes each full
// collection cost tens of ms).

function pipelinePlan(ops: number): Plan {
  const perChunk = 5;
  const spec = chunkRingWorkload(Math.floor(ops / perChunk), `bench ${ops} ops`);
  const result = validateWorkload(spec);
  if (!result.ok) {
    throw new Error(JSON.stringify(result.errors));
  }
  return result.plan;
}

/** Simulated makespan of the blog preset divided by the sequential one. */
function blogRatio(profile: 'c1060' | 'c2050' | 'k20c' | 'h100', variant: string): number {
  const run = (v: string): number => {
    const result = validateWorkload(buildPreset('overlap-blog', { variant: v }));
    if (!result.ok) {
      throw new Error(JSON.stringify(result.errors));
    }
    return simulate(result.plan, deviceProfiles[profile]).ops.maxEndNs;
  };
  return run(variant) / run('sequential');
}

/** Median process CPU time of `fn` in ms (less disturbed than wall time on a shared machine). */
function medianCpuMs(fn: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    fn();
    const used = process.cpuUsage(before);
    times.push((used.user + used.system) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Mean garbage-collection pause per call of `fn`, ms, from the runtime's `gc` performance entries. */
async function gcMsPerRun(fn: () => void, runs: number): Promise<number> {
  let totalMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      totalMs += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  for (let i = 0; i < runs; i++) {
    fn();
  }
  // Entries arrive on a later turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 0));
  observer.disconnect();
  return totalMs / runs;
}

export async function run(report: Report): Promise<void> {
  const perOp: number[] = [];
  for (const [label, ops, runs] of [
    // Small runs take a few ms each: more of them keep their median steady on a busy machine.
    ['10k', 10_000, 25],
    ['100k', 100_000, 9],
    ['1m', 1_000_000, 3],
  ] as const) {
    const plan = pipelinePlan(ops);
    const ms = medianMs(() => simulate(plan, deviceProfiles.h100), runs);
    const nsPerOp = (ms * 1e6) / plan.executedOpCount;
    perOp.push(nsPerOp);
    report(`sim.ns_per_op_${label}`, nsPerOp, 'ns');
    if (label === '1m') {
      report('sim.ms_1m_ops', ms, 'ms');
      const cpuMs = medianCpuMs(() => simulate(plan, deviceProfiles.h100), 3);
      report('sim.cpu_ns_per_op_1m', (cpuMs * 1e6) / plan.executedOpCount, 'ns');
      const gcMs = await gcMsPerRun(() => simulate(plan, deviceProfiles.h100), 3);
      report('sim.gc_ms_1m_ops', gcMs, 'ms');
      const validateMs = medianMs(() => void pipelinePlan(ops), 1);
      report('sim.validate_ns_per_op_1m', (validateMs * 1e6) / plan.executedOpCount, 'ns');
    }
  }
  report('sim.ns_per_op_ratio_1m_to_10k', perOp[2]! / perOp[0]!, 'x');
  for (const profile of ['c1060', 'c2050', 'k20c', 'h100'] as const) {
    report(`sim.blog_${profile}_depth_first_ratio`, blogRatio(profile, 'depth-first'), 'x');
    report(`sim.blog_${profile}_breadth_first_ratio`, blogRatio(profile, 'breadth-first'), 'x');
  }
}
