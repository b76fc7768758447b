import { MemKind, OpKind, Trace, packMemKinds } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { calibrationFromTrace, calibrationPlan } from './calibrate.ts';

const device = {
  deviceId: 0,
  name: 'NVIDIA H200',
  smCount: 132,
  copyEngineCount: 3,
  memoryBytes: 150e9,
  priorityRange: [-5, 0] as const,
};

describe('calibration', () => {
  it('builds one sequential plan with every measurement step', () => {
    const plan = calibrationPlan();
    const kernels = plan.threads[0]!.ops.filter((op) => op.kind === 'kernel');
    expect(kernels.length).toBeGreaterThan(40);
    expect(plan.streams[0]?.type).toBe('legacy-default');
    expect(plan.threads[0]!.ops.every((op, i) => op.opId === i)).toBe(true);
  });

  it('reads medians out of a trace: bandwidth = bytes / duration, offset = measured - requested', () => {
    const trace = new Trace();
    trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 0 });
    const name = (s: string): number => trace.strings.intern(s);
    let t = 0;
    const add = (kind: number, nameId: number, durNs: number, bytes = 0, memKinds = 0): void => {
      trace.addOp({ startNs: t, endNs: t + durNs, track: 0, kind, nameId, bytes, memKinds });
      t += durNs + 1000;
    };
    const mib64 = 64 * 1024 * 1024;
    for (let i = 0; i < 5; i++) {
      add(OpKind.ApiCall, name('cudaLaunchKernel'), 4000 + i);
      add(OpKind.Kernel, name('spin-short'), 10_600);
      add(OpKind.Kernel, name('spin-long'), 1_000_600);
      add(OpKind.Kernel, name('work-small'), 40_000);
      add(OpKind.Kernel, name('work-large'), 400_000);
      // 64 MiB in 1.3 ms ≈ 51.6 GB/s
      add(OpKind.CopyHtoD, 0, 1_300_000, mib64, packMemKinds(MemKind.Pinned, MemKind.Device));
      add(OpKind.CopyHtoD, 0, 8_000_000, mib64, packMemKinds(MemKind.Pageable, MemKind.Device));
      add(OpKind.CopyDtoH, 0, 1_310_000, mib64, packMemKinds(MemKind.Device, MemKind.Pinned));
      add(OpKind.CopyDtoH, 0, 9_000_000, mib64, packMemKinds(MemKind.Device, MemKind.Pageable));
      add(OpKind.CopyDtoD, 0, 64_000, mib64, packMemKinds(MemKind.Device, MemKind.Device));
    }
    const c = calibrationFromTrace(trace, device);
    expect(c.spinOffsetNs).toBe(600);
    // (200 000 - 20 000) iterations / (400 000 - 40 000) ns
    expect(c.workIterationsPerNs).toBeCloseTo(0.5, 6);
    expect(c.copyBandwidthBytesPerS.htodPinned).toBeCloseTo((mib64 / 1_300_000) * 1e9, 0);
    expect(c.copyBandwidthBytesPerS.dtod).toBeCloseTo((mib64 / 64_000) * 1e9, 0);
    expect(c.launchLatencyNs).toBe(4003);
    expect(c.device.priorityRange).toEqual([-5, 0]);
  });

  it('refuses a trace that lacks a measurement, naming it', () => {
    expect(() => calibrationFromTrace(new Trace(), device)).toThrow(
      /lacks measurements for: .*htodPinned/,
    );
  });
});
