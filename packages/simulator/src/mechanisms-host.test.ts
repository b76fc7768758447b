import { describe, expect, it } from 'vitest';
import type { WorkloadOpInput } from '@streamscope/workload';
import type { DeviceProfile } from './profile.ts';
import { deviceProfiles } from './profiles.ts';
import { apiOps, gpuOps, runSpec } from './test-helpers.ts';

// The host side of the mechanisms issue #20 models, each shown on its own: what changes when the
// mechanism's parameter changes, not how large it is on a given GPU.

const base = deviceProfiles.h100;
const MiB = 1024 * 1024;

function spec(ops: WorkloadOpInput[], buffers: unknown[] = []) {
  return {
    name: 'mechanism',
    buffers,
    streams: [
      { name: 's', type: 'non-blocking' },
      { name: 't', type: 'non-blocking' },
    ],
    threads: [{ name: 'main', ops: [...ops, { op: 'deviceSync' }] }],
  };
}

describe('pageable copies staged through pinned chunks', () => {
  const staging: DeviceProfile = {
    ...base,
    pageable: { chunkBytes: MiB, htodStagingBytesPerS: 8e9, dtohStagingBytesPerS: 4e9 },
  };
  const buffers = [
    { name: 'h', kind: 'host-pageable', size: '64MiB' },
    { name: 'd', kind: 'device', size: '64MiB' },
  ];
  const copy = (bytes: string, to: 'd' | 'h'): WorkloadOpInput => ({
    op: 'copy',
    src: to === 'd' ? 'h' : 'd',
    dst: to,
    bytes,
    stream: 's',
  });

  it('to the device: the engine waits for the first staged chunk, the call for the copy', () => {
    const trace = runSpec(spec([copy('16MiB', 'd')], buffers), staging);
    const call = apiOps(trace, 'cudaMemcpyAsync')[0]!;
    const dma = gpuOps(trace, 'copy-htod')[0]!;
    // 1 MiB staged at 8 GB/s = 131 µs before the engine can start
    expect(dma.startNs - call.startNs).toBeGreaterThanOrEqual((MiB / 8e9) * 1e9);
    expect(call.endNs).toBeGreaterThanOrEqual(dma.endNs);
    // without staging the engine starts right after the call's own cost
    const plain = runSpec(spec([copy('16MiB', 'd')], buffers), { ...base, pageable: null });
    const plainDma = gpuOps(plain, 'copy-htod')[0]!;
    expect(plainDma.startNs - apiOps(plain, 'cudaMemcpyAsync')[0]!.startNs).toBeLessThan(
      (MiB / 8e9) * 1e9,
    );
  });

  it('to the device, one chunk or less: the call returns once staged and the DMA runs on', () => {
    const trace = runSpec(spec([copy('512KiB', 'd')], buffers), staging);
    const call = apiOps(trace, 'cudaMemcpyAsync')[0]!;
    const dma = gpuOps(trace, 'copy-htod')[0]!;
    expect(call.endNs).toBeLessThan(dma.endNs);
    // at the pinned rate, not the pageable one
    const pinnedNs = ((512 * 1024) / base.copyBandwidthBytesPerS.htodPinned) * 1e9;
    expect(dma.endNs - dma.startNs).toBeLessThan(pinnedNs + base.copyFixedNs + 1);
  });

  it('to the host: the call returns after the host copies the last chunk out', () => {
    const trace = runSpec(spec([copy('16MiB', 'h')], buffers), staging);
    const call = apiOps(trace, 'cudaMemcpyAsync')[0]!;
    const dma = gpuOps(trace, 'copy-dtoh')[0]!;
    // 1 MiB out at 4 GB/s = 262 µs after the engine's last byte
    expect(call.endNs - dma.endNs).toBeGreaterThanOrEqual((MiB / 4e9) * 1e9);
  });
});

describe('cudaMalloc and cudaFree', () => {
  const kernelThen = (op: 'malloc' | 'free'): WorkloadOpInput[] => [
    ...(op === 'free' ? [{ op: 'malloc', buffer: 'scratch' } as WorkloadOpInput] : []),
    // longer than the call itself (a 1 GiB cudaFree costs about 0.8 ms on the H100 measured)
    { op: 'kernel', name: 'busy', duration: '5ms', stream: 's' },
    { op, buffer: 'scratch' },
    ...(op === 'malloc' ? [{ op: 'free', buffer: 'scratch' } as WorkloadOpInput] : []),
  ];
  const buffers = [{ name: 'scratch', kind: 'device', size: '1GiB' }];

  it('wait for the device only where the profile says they synchronize', () => {
    for (const syncs of [true, false]) {
      const profile = { ...base, mallocSyncs: syncs, freeSyncs: syncs };
      for (const op of ['malloc', 'free'] as const) {
        const trace = runSpec(spec(kernelThen(op), buffers), profile);
        const busy = gpuOps(trace, 'kernel')[0]!;
        const call = apiOps(trace, op === 'malloc' ? 'cudaMalloc' : 'cudaFree')[0]!;
        expect(call.endNs >= busy.endNs, `${op} syncs=${syncs}`).toBe(syncs);
      }
    }
  });

  it('cost more for larger buffers', () => {
    const profile = { ...base, api: { ...base.api, mallocPerGiB: 40_000, freePerGiB: 300_000 } };
    const cost = (size: string, name: string): number => {
      const trace = runSpec(
        spec(
          [
            { op: 'malloc', buffer: 'b' },
            { op: 'free', buffer: 'b' },
          ],
          [{ name: 'b', kind: 'device', size }],
        ),
        profile,
      );
      const call = apiOps(trace, name)[0]!;
      return call.endNs - call.startNs;
    };
    // 1 GiB against 1 MiB: (1 − 1/1024) GiB more at the per-GiB rates
    expect(cost('1GiB', 'cudaMalloc') - cost('1MiB', 'cudaMalloc')).toBeCloseTo(
      40_000 * (1 - 1 / 1024),
      -1,
    );
    expect(cost('1GiB', 'cudaFree') - cost('1MiB', 'cudaFree')).toBeCloseTo(
      300_000 * (1 - 1 / 1024),
      -1,
    );
  });
});

describe('launch costs', () => {
  const launches = (n: number): WorkloadOpInput[] =>
    Array.from({ length: n }, () => ({ op: 'kernel', duration: '1us', stream: 's' }));

  it('the host spends its gap between calls, and more after its first call', () => {
    const profile = { ...base, hostCallGapNs: 2_000, firstCallGapNs: 50_000 };
    const calls = apiOps(runSpec(spec(launches(3)), profile), 'cudaLaunchKernel');
    expect(calls[1]!.startNs - calls[0]!.endNs).toBeCloseTo(52_000, -1);
    expect(calls[2]!.startNs - calls[1]!.endNs).toBeCloseTo(2_000, -1);
  });

  it('each kind of call costs more the first time the process makes it, once over all threads', () => {
    const firstUseNs = { ...base.firstUseNs, launchKernel: 50_000, memcpy: 20_000 };
    const profile = { ...base, firstUseNs, api: { ...base.api, launchKernel: 5_000 } };
    const buffers = [
      { name: 'h', kind: 'host-pinned', size: '1MiB' },
      { name: 'd', kind: 'device', size: '1MiB' },
    ];
    const copy: WorkloadOpInput = { op: 'copy', src: 'h', dst: 'd', bytes: '1MiB', stream: 's' };
    const trace = runSpec(
      {
        ...spec([], buffers),
        threads: [
          { name: 'a', ops: [copy, ...launches(2), copy] },
          { name: 'b', ops: [{ op: 'hostWork', duration: '1ms' }, ...launches(1)] },
        ],
      },
      profile,
    );
    const durations = (name: string) =>
      apiOps(trace, name)
        .sort((x, y) => x.startNs - y.startNs)
        .map((c) => c.endNs - c.startNs);
    // the first launch pays 50 µs more, the later ones (thread b's too) do not
    expect(durations('cudaLaunchKernel')).toEqual([55_000, 5_000, 5_000]);
    const copies = durations('cudaMemcpyAsync');
    expect(copies[0]! - copies[1]!).toBeCloseTo(20_000, -1);
    // the launch's kernel is handed over after the longer call
    const [first] = gpuOps(trace, 'kernel').sort((x, y) => x.startNs - y.startNs);
    const [call] = apiOps(trace, 'cudaLaunchKernel').sort((x, y) => x.startNs - y.startNs);
    expect(first!.startNs).toBeGreaterThanOrEqual(call!.endNs);
  });

  it('a graph launch costs the host per node, and its first launch uploads it', () => {
    const profile = {
      ...base,
      api: { ...base.api, graphLaunch: 2_000, graphLaunchPerNode: 1_000 },
      graphFirstLaunchExtraNs: 30_000,
      hostCallGapNs: 0,
      firstCallGapNs: 0,
    };
    const graphOf = (nodes: number): WorkloadOpInput[] => [
      { op: 'graph', name: 'g', stream: 's', ops: launches(nodes) },
      { op: 'graphLaunch', graph: 'g', count: 2, stream: 's' },
    ];
    for (const nodes of [4, 16]) {
      const calls = apiOps(runSpec(spec(graphOf(nodes)), profile), 'cudaGraphLaunch');
      expect(calls[1]!.endNs - calls[1]!.startNs).toBeCloseTo(2_000 + nodes * 1_000, -1);
      expect(calls[0]!.endNs - calls[0]!.startNs).toBeCloseTo(32_000 + nodes * 1_000, -1);
    }
  });

  it('after a graph launch the host spends its own gap, not the one after kernel launches', () => {
    const profile = {
      ...base,
      api: { ...base.api, graphLaunch: 40_000, graphLaunchPerNode: 0 },
      hostCallGapNs: 500,
      graphCallGapNs: 4_000,
      firstCallGapNs: 0,
      graphFirstLaunchExtraNs: 0,
    };
    const trace = runSpec(
      spec([
        { op: 'graph', name: 'g', stream: 's', ops: launches(2) },
        { op: 'graphLaunch', graph: 'g', count: 3, stream: 's' },
        ...launches(2),
      ]),
      profile,
    );
    const graphs = apiOps(trace, 'cudaGraphLaunch');
    const kernels = apiOps(trace, 'cudaLaunchKernel');
    // launch → launch and the last launch → the next kernel launch: 4 µs each
    expect(graphs[1]!.startNs - graphs[0]!.endNs).toBeCloseTo(4_000, -1);
    expect(graphs[2]!.startNs - graphs[1]!.endNs).toBeCloseTo(4_000, -1);
    expect(kernels[0]!.startNs - graphs[2]!.endNs).toBeCloseTo(4_000, -1);
    // kernel launch → kernel launch: 0.5 µs
    expect(kernels[1]!.startNs - kernels[0]!.endNs).toBeCloseTo(500, -1);
  });

  it('a graph launch loop is bound by the host when its calls and gaps outlast its nodes', () => {
    // 20 one-µs nodes take about 20 × (1 µs + node gap) on the GPU; 40 µs + 8 µs per launch on
    // the host is longer, so 10 launches take about 10 × 48 µs, not 10 × the nodes' time.
    const profile = {
      ...base,
      api: { ...base.api, graphLaunch: 40_000, graphLaunchPerNode: 0 },
      graphCallGapNs: 8_000,
      firstCallGapNs: 0,
      graphFirstLaunchExtraNs: 0,
    };
    const trace = runSpec(
      spec([
        { op: 'graph', name: 'g', stream: 's', ops: launches(20) },
        { op: 'graphLaunch', graph: 'g', count: 10, stream: 's' },
      ]),
      profile,
    );
    const nodes = gpuOps(trace, 'kernel');
    const firstOfEach = nodes.filter((_, i) => i % 20 === 0);
    const steps = firstOfEach.slice(1).map((n, i) => n.startNs - firstOfEach[i]!.startNs);
    for (const stepNs of steps) {
      expect(stepNs).toBeCloseTo(48_000, -2);
    }
  });

  it("a graph's first node starts its launch gap after the op before it; nodes follow closely", () => {
    const profile = { ...base, graphLaunchGapNs: 6_000, graphNodeGapNs: 100 };
    const trace = runSpec(
      spec([
        { op: 'kernel', name: 'long', duration: '500us', stream: 's' },
        { op: 'graph', name: 'g', stream: 's', ops: launches(3) },
        { op: 'graphLaunch', graph: 'g', count: 1, stream: 's' },
      ]),
      profile,
    );
    const [long, n0, n1] = gpuOps(trace, 'kernel');
    expect(n0!.startNs - long!.endNs).toBeCloseTo(6_000, -1);
    expect(n1!.startNs - n0!.endNs).toBeCloseTo(100, -1);
  });
});
