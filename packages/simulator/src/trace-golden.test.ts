import { describe, expect, it } from 'vitest';
import type { PresetValue, WorkloadInput } from '@streamscope/workload';
import { buildPreset, chunkRingWorkload, presets, validateWorkload } from '@streamscope/workload';
import type { DeviceProfile } from './profile.ts';
import { deviceProfiles } from './profiles.ts';
import { randomSpec } from './random-spec.ts';
import { createSimulation, simulate } from './simulation.ts';
import { listDigest, traceDigest } from './trace-digest.ts';

// Traces the simulator produces, op by op. A change to the model shows up here first; if the
// change is meant, say why in its commit and take the new digests together with the fidelity
// reports (fixtures/runs/fidelity-*.txt) that justify it. Last taken with issue #20's measured
// mechanisms (pageable staging, malloc/free, graph and host costs, gaps, crowded SMs, kernels
// claiming SMs only from their start), the 3-round h100/h200 calibrations, priorities acting
// at block boundaries (priorityWaitShare), the host's own gap after a graph launch
// (graphCallGapNs, with graph launch costs read as means), and the h100 calibration of
// 2026-11-28 (24 rounds of a 400-launch loop, drains paced) with firstCallGapNs read as the
// simulator applies it (h200 re-read from its kept traces); then crowded blocks held spread
// over levels as the block probe measured, not in lockstep, with priorityWaitShare read from
// the phase-sampling probes only (re-read from every kept calibration's traces); then a fixed-work wave as
// long as its busiest SM past saturation (a last wave of 7.03 blocks per SM as long as a
// full one).

// One profile per GPU model: the multi-GPU hosts (h100x2 …) are these GPUs with a link model,
// which only collectives use (collectives.test.ts).
const profiles = [
  deviceProfiles.c1060,
  deviceProfiles.c2050,
  deviceProfiles.k20c,
  deviceProfiles.h100,
  deviceProfiles.h200,
];

function planOf(spec: WorkloadInput) {
  const result = validateWorkload(spec);
  if (!result.ok) {
    throw new Error(JSON.stringify(result.errors));
  }
  return result.plan;
}

/** The values of a preset's pitfall parameter worth running: each option, or the default and the least. */
function pitfallValues(name: string): PresetValue[] {
  const info = presets.find((p) => p.name === name)!;
  const param = info.params.find((p) => p.name === info.pitfallParam)!;
  if (param.options !== undefined) {
    return [...param.options];
  }
  if (param.type === 'bool') {
    return [true, false];
  }
  return param.min === undefined ? [param.default] : [param.default, param.min];
}

/** The simulator benchmark's workload: copy, kernel, record, cross-stream wait, copy, per chunk. */
function pipelineSpec(chunks: number): WorkloadInput {
  return chunkRingWorkload(chunks, `pipeline ${chunks}`);
}

/** Runs in small steps, as a live run does: 50 us of simulated time or 7 events at a time. */
function steppedDigest(spec: WorkloadInput, profile: DeviceProfile): string {
  const sim = createSimulation(planOf(spec), profile);
  const counts: string[] = [];
  for (let untilNs = 50_000; !sim.step(untilNs, 7); untilNs += 50_000) {
    counts.push(`${sim.trace.ops.count}/${sim.trace.flows.count}/${sim.nowNs}`);
  }
  return listDigest([traceDigest(sim.trace), listDigest(counts)]);
}

describe('simulated traces, op by op', () => {
  it('are what they were for every preset and pitfall value on every profile', () => {
    const digests: Record<string, string> = {};
    for (const preset of presets) {
      const values = pitfallValues(preset.name);
      const traces: string[] = [];
      for (const value of values) {
        const plan = planOf(buildPreset(preset.name, { [preset.pitfallParam]: value }));
        for (const profile of profiles) {
          // Collectives need a host with links between its GPUs (the Hopper profiles).
          if (plan.groups.length === 0 || profile.links !== undefined) {
            traces.push(traceDigest(simulate(plan, profile)));
          }
        }
      }
      digests[preset.name] = listDigest(traces);
    }
    expect(digests).toEqual({
      'ddp-bucketing': '1e4cebd56f91eb2b',
      'default-stream': 'f3b7aa0dac601f1f',
      'events-vs-device-sync': '4572d6e8e23736be',
      graphs: '6bfe2c1bdba7efb5',
      'issue-order': '1efdc8337587a695',
      'malloc-in-loop': 'fa5d27c44ad9f682',
      'over-sync': '89c7870a47114d0c',
      'overlap-blog': '2e40894891fd3f32',
      'pinned-vs-pageable': '38444051e0c51fef',
      pipeline: '9c3c7b445fca6eda',
      priorities: '4893d0e962cfa24f',
      'stream-count': '9726389bc29b0f1d',
    });
  });

  it('are what they were for seeded random workloads on every profile', () => {
    const traces: string[] = [];
    let valid = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const result = validateWorkload(randomSpec(seed));
      if (!result.ok) {
        traces.push(`invalid ${result.errors[0]!.path}`);
        continue;
      }
      valid++;
      for (const profile of profiles) {
        traces.push(traceDigest(simulate(result.plan, profile)));
      }
    }
    expect(valid).toBe(40);
    expect(listDigest(traces)).toBe('538af4bb0751930d');
  });

  it('are what they were for 4,000 pipeline chunks (20,000 ops)', () => {
    const plan = planOf(pipelineSpec(4_000));
    const digests = ['h100', 'c2050', 'k20c'].map((name) =>
      traceDigest(simulate(plan, deviceProfiles[name as keyof typeof deviceProfiles])),
    );
    expect(digests).toEqual(['a5dad6311561e7fb', '2502cd6302d67dc1', '79c17c2d48140c3b']);
  });

  it('are what they were when the host runs 1,024 launches ahead and waits for slots', () => {
    // 40 us kernels that fill the GPU issued far faster than they run: launches throttle.
    const plan = planOf({
      name: 'throttled',
      buffers: [
        { name: 'h', kind: 'host-pinned', size: '4MiB' },
        { name: 'd', kind: 'device', size: '4MiB' },
      ],
      streams: [{ name: 's', count: 4, type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            {
              op: 'repeat',
              count: 1500,
              ops: [
                {
                  op: 'kernel',
                  name: 'slow',
                  duration: '40us',
                  grid: 264,
                  block: 512,
                  stream: 's[i % 4]',
                },
                { op: 'copy', src: 'h', dst: 'd', bytes: '16KiB', stream: 's[(i + 1) % 4]' },
              ],
            },
            { op: 'deviceSync' },
          ],
        },
      ],
    });
    const digests = ['h100', 'c2050', 'c1060'].map((name) =>
      traceDigest(simulate(plan, deviceProfiles[name as keyof typeof deviceProfiles])),
    );
    expect(digests).toEqual(['a09e60a0dad87966', '18c10c0f90bbed75', 'cb29db365f4b53f4']);
  });

  it('are what they were when run in small steps', () => {
    expect([
      steppedDigest(pipelineSpec(200), deviceProfiles.h100),
      steppedDigest(
        buildPreset('overlap-blog', { variant: 'breadth-first' }),
        deviceProfiles.c2050,
      ),
      steppedDigest(randomSpec(7), deviceProfiles.k20c),
    ]).toEqual(['4e93e5482d8b055e', 'f90cc5c967810a2f', '791f37e4574f3e52']);
  });
});
