// The cuda-graphs lesson is bound by the host on both sides: its makespan is the host's cost per
// launch times the launches. This simulates each kept run of it (fidelity-traces-*.tar.xz,
// unpacked: DIR/cuda-graphs.{before,after}.N.sstrace) with the host costs read from that run
// itself (mean call and mean gap to the next call), so what is left is the model's own error,
// apart from how fast the host happened to be in that run:
//   pnpm tsx scripts/gpu/host-cost-check.ts DIR PROFILE
import { readFileSync, readdirSync } from 'node:fs';
import process from 'node:process';
import { analyzeTrace } from '@streamscope/analysis';
import type { DeviceProfile } from '@streamscope/simulator';
import { findProfile, simulate } from '@streamscope/simulator';
import type { Trace } from '@streamscope/trace';
import { OpKind, loadTrace } from '@streamscope/trace';
import { buildPreset, validateWorkload } from '@streamscope/workload';

/** Mean duration of the calls named `name` (the first left out: first use) and mean gap after. */
function hostCosts(trace: Trace, name: string): { callNs: number; gapNs: number } {
  const c = trace.ops.columns();
  const host: number[] = [];
  for (let i = 0; i < c.count; i++) {
    if (c.kind[i] === OpKind.ApiCall) {
      host.push(i);
    }
  }
  host.sort((a, b) => c.startNs[a]! - c.startNs[b]!);
  const calls: number[] = [];
  const gaps: number[] = [];
  for (let j = 0; j + 1 < host.length; j++) {
    const i = host[j]!;
    if (trace.name(c.nameId[i]!) === name) {
      calls.push(c.endNs[i]! - c.startNs[i]!);
      gaps.push(c.startNs[host[j + 1]!]! - c.endNs[i]!);
    }
  }
  if (calls.length < 2) {
    throw new Error(`${trace.meta.title}: fewer than two ${name} calls`);
  }
  const mean = (v: number[]): number => v.reduce((s, x) => s + x, 0) / v.length;
  return { callNs: mean(calls.slice(1)), gapNs: mean(gaps.slice(1)) };
}

const [dir, profileName = 'h100'] = process.argv.slice(2);
const base = findProfile(profileName);
if (dir === undefined || base === undefined) {
  process.stderr.write('usage: host-cost-check.ts DIR PROFILE (a profile name: h100, h200)\n');
  process.exit(2);
}
const files = readdirSync(dir)
  .filter((f) => /^cuda-graphs\.(before|after)\.\d+\.sstrace$/.test(f))
  .sort();
if (files.length === 0) {
  process.stderr.write(`${dir}: no cuda-graphs.{before,after}.N.sstrace\n`);
  process.exit(1);
}
let worstPct = 0;
for (const file of files) {
  const graph = file.includes('.after.');
  const trace = loadTrace(new Uint8Array(readFileSync(`${dir}/${file}`)));
  const { callNs, gapNs } = hostCosts(trace, graph ? 'cudaGraphLaunch' : 'cudaLaunchKernel');
  // This run's host: the whole launch cost in the fixed part, its own gap after each call.
  const profile: DeviceProfile = graph
    ? {
        ...base,
        api: { ...base.api, graphLaunch: callNs, graphLaunchPerNode: 0 },
        graphCallGapNs: gapNs,
      }
    : { ...base, api: { ...base.api, launchKernel: callNs }, hostCallGapNs: gapNs };
  const checked = validateWorkload(buildPreset('graphs', { useGraph: graph }));
  if (!checked.ok) {
    throw new Error(JSON.stringify(checked.errors));
  }
  const simNs = analyzeTrace(simulate(checked.plan, profile)).metrics.makespanNs;
  const measuredNs = analyzeTrace(trace).metrics.makespanNs;
  const errorPct = (simNs / measuredNs - 1) * 100;
  worstPct = Math.max(worstPct, Math.abs(errorPct));
  process.stdout.write(
    `${file.padEnd(30)} call ${(callNs / 1e3).toFixed(2).padStart(6)} µs, gap ${(gapNs / 1e3).toFixed(2).padStart(5)} µs; ` +
      `measured ${(measuredNs / 1e6).toFixed(3)} ms, simulated ${(simNs / 1e6).toFixed(3)} ms, ` +
      `${errorPct >= 0 ? '+' : ''}${errorPct.toFixed(1)}%\n`,
  );
}
process.stdout.write(`${JSON.stringify({ profile: profileName, runs: files.length, worstPct })}\n`);
