import { describe, expect, it } from 'vitest';
import { FlowKind, OpKind, TraceDecoder, TraceEncoder } from '@streamscope/trace';
import { buildPreset, validateWorkload } from '@streamscope/workload';
import { CalibrationError, profileFromCalibration } from './calibration.ts';
import { deviceProfiles } from './profiles.ts';
import { SimulationError, createSimulation, simulate } from './simulation.ts';
import { apiOps, gpuOps, opsOf, runPreset, runSpec } from './test-helpers.ts';

function blogPlan() {
  const result = validateWorkload(buildPreset('overlap-blog', { variant: 'depth-first' }));
  if (!result.ok) {
    throw new Error(JSON.stringify(result.errors));
  }
  return result.plan;
}

describe('the simulated trace', () => {
  it('has devices, host and stream tracks, and the sim meta', () => {
    const trace = simulate(blogPlan(), deviceProfiles.h200);
    expect(trace.meta).toMatchObject({
      sourceFormat: 'streamscope-sim',
      timingMethod: 'sim',
      profile: 'h200',
    });
    expect(trace.devices[0]).toMatchObject({
      name: 'NVIDIA H200',
      smCount: 132,
      copyEngineCount: 3,
      priorityRange: [-5, 0],
    });
    expect(trace.tracks.map((t) => `${t.kind}:${t.name}`)).toEqual([
      'host-thread:main',
      'gpu-stream:legacy',
      'gpu-stream:stream[0]',
      'gpu-stream:stream[1]',
      'gpu-stream:stream[2]',
      'gpu-stream:stream[3]',
    ]);
  });

  it('links every API call to its GPU op by correlation id and an ApiToGpu flow', () => {
    const trace = simulate(blogPlan(), deviceProfiles.h100);
    const gpu = gpuOps(trace);
    const api = apiOps(trace);
    const flows = trace.flows.columns();
    const apiToGpu = new Map<number, number>();
    for (let i = 0; i < flows.count; i++) {
      if (flows.kind[i] === FlowKind.ApiToGpu) {
        apiToGpu.set(flows.toOp[i]!, flows.fromOp[i]!);
      }
    }
    for (const op of gpu) {
      const from = apiToGpu.get(op.index);
      expect(from, `${op.kind} ${op.name}`).toBeDefined();
      const call = api.find((a) => a.index === from)!;
      expect(call.correlationId).toBe(op.correlationId);
      expect(call.startNs).toBeLessThanOrEqual(op.startNs);
    }
    expect(api.map((a) => a.name)).toContain('cudaLaunchKernel');
  });

  it('records NVTX ranges, kernel launch configs and event-record-to-wait flows', () => {
    const blog = simulate(blogPlan(), deviceProfiles.h100);
    const ranges = blog.ranges.columns();
    expect(ranges.count).toBe(1);
    expect(blog.name(ranges.nameId[0]!)).toBe('depth-first');
    const kernel = gpuOps(blog, 'kernel')[0]!;
    const c = blog.ops.columns();
    expect(blog.launches.get(c.refId[kernel.index]!)).toMatchObject({ gridX: 4096, blockX: 256 });
    const events = runPreset(
      'events-vs-device-sync',
      { dependency: 'event', rounds: 2 },
      deviceProfiles.h100,
    );
    const flows = events.flows.columns();
    const waits: number[] = [];
    for (let i = 0; i < flows.count; i++) {
      if (flows.kind[i] === FlowKind.EventRecordToWait) {
        expect(events.ops.columns().kind[flows.fromOp[i]!]).toBe(OpKind.EventRecord);
        waits.push(flows.toOp[i]!);
      }
    }
    expect(waits).toHaveLength(2);
    expect(waits.every((w) => events.ops.columns().kind[w] === OpKind.StreamWait)).toBe(true);
  });

  it('grows step by step with only finished GPU ops, and ends like a whole run', () => {
    const plan = blogPlan();
    const sim = createSimulation(plan, deviceProfiles.c2050);
    const decoder = new TraceDecoder();
    const encoder = new TraceEncoder(sim.trace);
    let steps = 0;
    let untilNs = 0;
    while (!sim.step(untilNs)) {
      const gpu = gpuOps(sim.trace);
      expect(gpu.every((o) => o.endNs <= sim.nowNs)).toBe(true);
      decoder.apply(encoder.encodeNew());
      untilNs += 250_000;
      steps++;
    }
    decoder.apply(encoder.encodeNew());
    expect(steps).toBeGreaterThan(10);
    const whole = simulate(plan, deviceProfiles.c2050);
    expect(opsOf(sim.trace)).toEqual(opsOf(whole));
    expect(decoder.trace.ops.count).toBe(whole.ops.count);
    expect(sim.nowNs).toBe(whole.ops.maxEndNs);
  });

  it('refuses a plan that needs more device memory than the profile has', () => {
    const spec = {
      name: 'big',
      buffers: [{ name: 'd', kind: 'device', size: '4GiB' }],
      threads: [{ name: 'main', ops: [{ op: 'memset', dst: 'd' }] }],
    };
    expect(() => runSpec(spec, deviceProfiles.c2050)).toThrow(SimulationError);
    expect(() => runSpec(spec, deviceProfiles.c2050)).toThrow(
      /buffer "d".*more than the 3221225472 of Tesla C2050/,
    );
    expect(runSpec(spec, deviceProfiles.h100).ops.count).toBeGreaterThan(0);
  });
});

describe('profileFromCalibration', () => {
  const calibration = {
    device: {
      name: 'NVIDIA H200',
      smCount: 132,
      copyEngineCount: 3,
      memoryBytes: 150_754_820_096,
      priorityRange: [-5, 0],
    },
    launchLatencyNs: 3_800,
    copyBandwidthBytesPerS: {
      htodPinned: 5.2e10,
      htodPageable: 8.4e9,
      dtohPinned: 5.1e10,
      dtohPageable: 8e9,
      dtod: 2.1e12,
    },
    workIterationsPerNs: 0.42,
    spinOffsetNs: 610,
  };

  it('turns measured figures into a profile the simulator runs', () => {
    const profile = profileFromCalibration(calibration);
    expect(profile).toMatchObject({
      name: 'calibrated:NVIDIA H200',
      workIterationsPerNs: 0.42,
      spinOffsetNs: 610,
    });
    expect(profile.api.launchKernel).toBe(3_800);
    expect(profile.copyBandwidthBytesPerS.htodPinned).toBe(5.2e10);
    // Unmeasured values come from the shipped H200 profile: its measured engine layout (copies
    // one way take turns on one engine; the third serves peers only).
    expect(profile.copyEngines).toEqual(['htod', 'dtoh', 'peer']);
    expect(profile.provenance?.measured.values).toContain('api.launchKernel');
    expect(profile.provenance?.inherited.from).toBe('h200');
    expect(profile.provenance?.inherited.values).toContain('streamGapNs');
    expect(simulate(blogPlan(), profile).ops.count).toBeGreaterThan(0);
  });

  it('names the field that is wrong', () => {
    expect(() => profileFromCalibration(null)).toThrow(CalibrationError);
    expect(() => profileFromCalibration({ ...calibration, workIterationsPerNs: -1 })).toThrow(
      '$.workIterationsPerNs: expected a positive number, got -1',
    );
    expect(() =>
      profileFromCalibration({
        ...calibration,
        copyBandwidthBytesPerS: { ...calibration.copyBandwidthBytesPerS, dtod: 'fast' },
      }),
    ).toThrow('$.copyBandwidthBytesPerS.dtod: expected a positive number, got "fast"');
    expect(() =>
      profileFromCalibration({
        ...calibration,
        device: { ...calibration.device, priorityRange: [0, -5] },
      }),
    ).toThrow(/\$\.device\.priorityRange/);
  });
});
