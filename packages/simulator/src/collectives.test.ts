import { describe, expect, it } from 'vitest';
import type { WorkloadOpInput } from '@streamscope/workload';
import { collectiveCost, collectiveTraffic, linkProfiles, p2pCost } from './link-model.ts';
import { deviceProfiles } from './profiles.ts';
import { SimulationError } from './simulation.ts';
import { gpuOps, runSpec } from './test-helpers.ts';

const h100 = deviceProfiles.h100;
const link = linkProfiles['nvlink4-x8'];
const MiB = 1024 ** 2;

// Two GPUs, a compute and a communication stream on each, 64 MiB of gradients per GPU.
function spec(ops: WorkloadOpInput[], devices = 2) {
  const names = Array.from({ length: devices }, (_, i) => `gpu${i}`);
  return {
    name: 'collectives',
    devices: names.map((name) => ({ name })),
    groups: [{ name: 'world', devices: names }],
    buffers: names.map((device, i) => ({
      name: `g${i}`,
      kind: 'device' as const,
      size: '64MiB',
      device,
    })),
    streams: names.flatMap((device, i) => [
      { name: `compute${i}`, device, type: 'non-blocking' as const },
      { name: `comm${i}`, device, type: 'non-blocking' as const },
    ]),
    threads: [
      {
        name: 'main',
        ops: [
          ...ops,
          ...names.flatMap((_, i): WorkloadOpInput[] => [
            { op: 'streamSync', stream: `compute${i}` },
            { op: 'streamSync', stream: `comm${i}` },
          ]),
        ],
      },
    ],
  };
}

function allReduce(bytes: string, devices = 2): WorkloadOpInput {
  return {
    op: 'allReduce',
    group: 'world',
    streams: Array.from({ length: devices }, (_, i) => `comm${i}`),
    send: Array.from({ length: devices }, (_, i) => `g${i}`),
    bytes,
  };
}

describe('the link model', () => {
  it('moves 2(n−1)/n of the buffer for a ring all-reduce and (n−1)/n of the total for gather and scatter', () => {
    // 8 ranks, 64 MiB each: all-reduce 2 × 7/8 × 64 MiB = 112 MiB over 14 steps.
    expect(collectiveTraffic('allReduce', 64 * MiB, 8, 'RING')).toEqual({
      busBytes: 112 * MiB,
      steps: 14,
    });
    // all-gather of 64 MiB per rank: the total 512 MiB × 7/8 = 448 MiB in 7 steps.
    expect(collectiveTraffic('allGather', 64 * MiB, 8, 'RING')).toEqual({
      busBytes: 448 * MiB,
      steps: 7,
    });
    expect(collectiveTraffic('broadcast', 64 * MiB, 8, 'RING')).toEqual({
      busBytes: 64 * MiB,
      steps: 7,
    });
    expect(collectiveTraffic('allReduce', 64 * MiB, 1, 'RING')).toEqual({ busBytes: 0, steps: 0 });
  });

  it('times a large all-reduce at the bus bandwidth with Simple, a small one latency-bound with LL', () => {
    const large = collectiveCost(link, 'allReduce', 256 * MiB, 2, 'auto');
    // 2 ranks: 256 MiB on the bus at 360 GB/s = 745.65 µs, + 8.4 µs base + 2 steps × 3.4 µs.
    expect(large.protocol).toBe('SIMPLE');
    expect(large.algorithm).toBe('RING');
    expect(large.durNs).toBeCloseTo((256 * MiB * 1e9) / 360e9 + 8_400 + 2 * 3_400, 0);
    const small = collectiveCost(link, 'allReduce', 4096, 2, 'auto');
    expect(small.protocol).toBe('LL');
    expect(small.durNs).toBeLessThan(10_000);
  });

  it('picks a tree for a small all-reduce over 8 ranks (fewer steps) and a ring for a large one', () => {
    expect(collectiveCost(link, 'allReduce', 8192, 8, 'auto').algorithm).toBe('TREE');
    expect(collectiveCost(link, 'allReduce', 256 * MiB, 8, 'auto').algorithm).toBe('RING');
    expect(collectiveCost(link, 'allReduce', 8192, 8, 'ring').algorithm).toBe('RING');
  });

  it('makes PCIe collectives about nine times slower than NVLink ones for large buffers', () => {
    const nvlink = collectiveCost(linkProfiles['nvlink4-x4'], 'allReduce', 256 * MiB, 4, 'auto');
    const pcie = collectiveCost(linkProfiles['pcie5-x4'], 'allReduce', 256 * MiB, 4, 'auto');
    // 360 / 40 GB/s = 9.
    expect(pcie.durNs / nvlink.durNs).toBeGreaterThan(8.5);
    expect(pcie.durNs / nvlink.durNs).toBeLessThan(9.1);
    expect(p2pCost(link, 0)).toBe(link.baseLatNs.SIMPLE + link.stepLatNs.SIMPLE);
  });
});

describe('collectives on the simulated GPUs', () => {
  it('runs one NCCL-named kernel per member, starting together, for the link model’s time', () => {
    const trace = runSpec(spec([allReduce('64MiB')]), h100);
    const kernels = gpuOps(trace, 'kernel');
    expect(kernels.map((k) => [k.track, k.name])).toEqual([
      ['comm0', 'ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE'],
      ['comm1', 'ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE'],
    ]);
    const [a, b] = kernels;
    expect(a!.startNs).toBe(b!.startNs);
    const expected = collectiveCost(link, 'allReduce', 64 * MiB, 2, 'auto').durNs;
    expect(a!.endNs - a!.startNs).toBeCloseTo(expected, -1);
    // One host call issued both, and both kernels carry its correlation id.
    expect(a!.correlationId).toBe(b!.correlationId);
  });

  it('holds every member until the last member’s stream reaches the collective', () => {
    // gpu0's communication stream is busy for 2 ms first; gpu1's is free.
    const trace = runSpec(
      spec([
        { op: 'kernel', name: 'busy', duration: '2ms', grid: 1, stream: 'comm0' },
        allReduce('1MiB'),
      ]),
      h100,
    );
    const busy = gpuOps(trace, 'kernel').find((k) => k.name === 'busy')!;
    const nccl = gpuOps(trace, 'kernel').filter((k) => k.name.startsWith('ncclDevKernel'));
    expect(nccl).toHaveLength(2);
    for (const k of nccl) {
      expect(k.startNs).toBeGreaterThanOrEqual(busy.endNs);
    }
    expect(nccl[0]!.startNs).toBe(nccl[1]!.startNs);
  });

  it('holds SMs whole: a one-wave kernel beside a collective doubles up and takes twice as long', () => {
    // Measured on two H200s: 132 blocks of 1024 threads took 145.2 µs alone and 288.5 µs
    // beside a 16-channel all-reduce (fixtures/runs/collectives-h200x2.json, ddp-overlap).
    const slowdown = (grid: number, block: number, iterations: number, after = 0): number => {
      const compute: WorkloadOpInput = {
        op: 'kernel',
        name: 'backward',
        iterations,
        grid,
        block,
        stream: 'compute0',
      };
      const alone = gpuOps(runSpec(spec([compute]), h100), 'kernel')[0]!;
      // `after` µs of other work on the compute stream first: the collective may be over.
      const wait: WorkloadOpInput[] =
        after > 0
          ? [{ op: 'kernel', name: 'wait', duration: `${after}us`, grid: 1, stream: 'compute0' }]
          : [];
      const beside = gpuOps(
        runSpec(spec([allReduce('64MiB'), ...wait, compute]), h100),
        'kernel',
      ).find((k) => k.name === 'backward')!;
      return (beside.endNs - beside.startNs) / (alone.endNs - alone.startNs);
    };
    const sms = h100.device.smCount;
    expect(slowdown(sms, 1024, 5_000)).toBeCloseTo(2, 1);
    // Four blocks an SM: the displaced ones make five on the busiest SMs.
    expect(slowdown(4 * sms, 256, 5_000)).toBeCloseTo(5 / 4, 1);
    // Once the collective has ended its SMs are everybody's again.
    expect(slowdown(sms, 1024, 5_000, 2_000)).toBeCloseTo(1, 2);
  });

  it('waits for empty SMs: an all-reduce behind a one-wave kernel starts when it ends, urgent stream or not', () => {
    const sms = h100.device.smCount;
    const compute: WorkloadOpInput = {
      op: 'kernel',
      name: 'backward',
      iterations: 5_000,
      grid: sms,
      block: 1024,
      stream: 'compute0',
    };
    for (const priority of [0, -1]) {
      const base = spec([compute, allReduce('64MiB')]);
      const urgentComm = {
        ...base,
        streams: base.streams.map((s) => (s.name.startsWith('comm') ? { ...s, priority } : s)),
      };
      const kernels = gpuOps(runSpec(urgentComm, h100), 'kernel');
      const backward = kernels.find((k) => k.name === 'backward')!;
      const nccl = kernels.filter((k) => k.name.startsWith('ncclDevKernel'));
      expect(nccl).toHaveLength(2);
      for (const k of nccl) {
        expect(k.startNs, `priority ${priority}`).toBeGreaterThanOrEqual(backward.endNs);
      }
    }
  });

  it('pairs a send with its recv: both halves start together as NCCL SendRecv kernels', () => {
    const trace = runSpec(
      spec([
        { op: 'kernel', name: 'busy', duration: '1ms', grid: 1, stream: 'comm1' },
        { op: 'send', stream: 'comm0', buffer: 'g0', bytes: '8MiB', peer: 'gpu1' },
        { op: 'recv', stream: 'comm1', buffer: 'g1', bytes: '8MiB', peer: 'gpu0' },
      ]),
      h100,
    );
    const halves = gpuOps(trace, 'kernel').filter((k) => k.name === 'ncclDevKernel_SendRecv');
    const busy = gpuOps(trace, 'kernel').find((k) => k.name === 'busy')!;
    expect(halves).toHaveLength(2);
    expect(halves[0]!.startNs).toBe(halves[1]!.startNs);
    expect(halves[0]!.startNs).toBeGreaterThanOrEqual(busy.endNs);
    expect(halves[0]!.endNs - halves[0]!.startNs).toBeCloseTo(p2pCost(link, 8 * MiB), -1);
  });

  it('refuses a plan with collectives on a one-GPU profile and one with more devices than the host', () => {
    expect(() => runSpec(spec([allReduce('1MiB')]), deviceProfiles.k20c)).toThrow(SimulationError);
    expect(() => runSpec(spec([allReduce('1MiB')]), deviceProfiles.k20c)).toThrow(
      /profile "k20c" describes a one-GPU host/,
    );
    expect(() => runSpec(spec([allReduce('1MiB', 4)], 4), deviceProfiles.h100x2)).toThrow(
      'the plan uses 4 devices, but profile "h100x2" has 2 GPUs (NVLink 4 through NVSwitch (900 GB/s bidirectional per GPU))',
    );
    // 4 ranks fit the 4-GPU host: all four members run.
    const four = runSpec(spec([allReduce('1MiB', 4)], 4), deviceProfiles.h100x4);
    expect(gpuOps(four, 'kernel')).toHaveLength(4);
  });

  it('runs a one-member collective on a one-GPU profile for NCCL’s base latency alone', () => {
    const trace = runSpec(spec([allReduce('64MiB', 1)], 1), deviceProfiles.k20c);
    const [k] = gpuOps(trace, 'kernel');
    // Nothing crosses a link: the cheapest protocol's base latency, LL's 3.6 µs.
    expect(k!.name).toBe('ncclDevKernel_AllReduce_Sum_f32_RING_LL');
    expect(k!.endNs - k!.startNs).toBe(linkProfiles.local.baseLatNs.LL);
  });

  it('keeps the link model on the calibrated H100 and H200 profiles', () => {
    expect(deviceProfiles.h100.links?.name).toBe('nvlink4-x8');
    expect(deviceProfiles.h200x2.links?.gpusPerHost).toBe(2);
    expect(deviceProfiles['h100-pcie-x4'].links?.busBytesPerS).toBe(40e9);
  });
});
