import { OpKind } from '@streamscope/trace';
import { buildPreset } from '@streamscope/workload';
import { describe, expect, it } from 'vitest';
import type { Backend } from './backend.ts';
import { createBackends, resolveAuto } from './create-backends.ts';
import { SimBackend } from './sim-backend.ts';

const workload = buildPreset('pipeline');

describe('the sim backend', () => {
  it('runs a preset to the end as fast as possible, growing the trace', async () => {
    const run = new SimBackend().start({ workload, timeLimitMs: 30_000, pace: 'fast' });
    let updates = 0;
    run.onUpdate(() => updates++);
    await expect(run.done).resolves.toEqual({ status: 'finished' });
    expect(run.trace.meta.timingMethod).toBe('sim');
    expect(run.trace.ops.columns().kind).toContain(OpKind.Kernel);
    expect(updates).toBeGreaterThan(0);
  });

  it('paces a run at GPU speed: it takes about its simulated length', async () => {
    const t0 = Date.now();
    const run = new SimBackend().start({ workload, timeLimitMs: 30_000, pace: 'realtime' });
    await run.done;
    const spanMs = run.trace.spanNs() / 1e6;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(Math.floor(spanMs));
  });

  it('cancels and enforces the time limit', async () => {
    const slow = buildPreset('malloc-in-loop');
    const cancelled = new SimBackend().start({
      workload: slow,
      timeLimitMs: 30_000,
      pace: 'realtime',
    });
    cancelled.cancel();
    await expect(cancelled.done).resolves.toEqual({ status: 'cancelled' });
    const limited = new SimBackend().start({ workload: slow, timeLimitMs: 1, pace: 'realtime' });
    await expect(limited.done).resolves.toEqual({
      status: 'failed',
      reason: 'time limit of 1 ms exceeded',
    });
  });

  it('names the profiles it knows when asked for another', () => {
    expect(() =>
      new SimBackend().start({ workload, target: 'nope', timeLimitMs: 1000, pace: 'fast' }),
    ).toThrow(/unknown device profile 'nope' \(known: .*h100/);
  });

  it('lists its device profiles with the default first, as a run without a target gets', async () => {
    expect((await new SimBackend().status()).targets[0]).toBe('h100');
    const targets = (await new SimBackend({ defaultProfile: 'c2050' }).status()).targets;
    expect(targets[0]).toBe('c2050');
    // The single GPUs, and the multi-GPU hosts (NVLink and PCIe) that collectives run on.
    expect([...targets].sort()).toEqual([
      'c1060',
      'c2050',
      'h100',
      'h100-pcie-x4',
      'h100x2',
      'h100x4',
      'h100x8',
      'h200',
      'h200x2',
      'h200x4',
      'h200x8',
      'k20c',
    ]);
  });
});

describe('backend selection', () => {
  it('auto falls back to the simulator without a GPU and says why', async () => {
    const unavailable: Backend = {
      name: 'cuda',
      status: () =>
        Promise.resolve({ name: 'cuda', available: false, reason: 'no CUDA driver', targets: [] }),
      start: () => {
        throw new Error('not here');
      },
    };
    const backends = { ...createBackends(), cuda: unavailable };
    const { backend, reason } = await resolveAuto(backends);
    expect(backend.name).toBe('sim');
    expect(reason).toBe('no GPU run possible (no CUDA driver): using the simulator');
  });

  it('auto picks cuda when a GPU is there', async () => {
    const available: Backend = {
      name: 'cuda',
      status: () => Promise.resolve({ name: 'cuda', available: true, targets: ['0: NVIDIA H100'] }),
      start: () => {
        throw new Error('not here');
      },
    };
    const { backend, reason } = await resolveAuto({ ...createBackends(), cuda: available });
    expect(backend.name).toBe('cuda');
    expect(reason).toContain('0: NVIDIA H100');
  });
});
