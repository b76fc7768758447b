import { describe, expect, it } from 'vitest';
import { deviceProfiles } from './profiles.ts';
import { apiOps, gpuOps, makespanNs, overlapNs, runPreset, runSpec } from './test-helpers.ts';

const h100 = deviceProfiles.h100;

describe('default streams', () => {
  it('the legacy default stream waits for blocking streams and they wait for it', () => {
    const trace = runPreset('default-stream', { mode: 'legacy', rounds: 2 }, h100);
    const work = gpuOps(trace).filter((o) => o.name === 'work');
    const book = gpuOps(trace).filter((o) => o.name === 'bookkeeping');
    // round 0's bookkeeping starts after all 4 workers of round 0 end; round 1's workers after it
    expect(book[0]!.startNs).toBeGreaterThanOrEqual(
      Math.max(...work.slice(0, 4).map((w) => w.endNs)),
    );
    for (const w of work.slice(4, 8)) {
      expect(w.startNs).toBeGreaterThanOrEqual(book[0]!.endNs);
    }
  });

  it('non-blocking streams and the per-thread default stream remove the barrier', () => {
    const legacy = makespanNs(runPreset('default-stream', { mode: 'legacy' }, h100));
    for (const mode of ['non-blocking', 'per-thread']) {
      const trace = runPreset('default-stream', { mode }, h100);
      const work = gpuOps(trace).filter((o) => o.name === 'work');
      const book = gpuOps(trace).filter((o) => o.name === 'bookkeeping');
      expect(
        book.some((b) => work.some((w) => overlapNs(b, w) > 0)),
        mode,
      ).toBe(true);
      expect(makespanNs(trace), mode).toBeLessThan(legacy * 0.8);
    }
  });
});

describe('host blocking', () => {
  it('pageable copies block the host for the whole copy; pinned ones return at once', () => {
    const pageable = runPreset('pinned-vs-pageable', { hostMemory: 'pageable' }, h100);
    const pinned = runPreset('pinned-vs-pageable', { hostMemory: 'pinned' }, h100);
    const call = apiOps(pageable, 'cudaMemcpyAsync')[0]!;
    const copy = gpuOps(pageable, 'copy-htod')[0]!;
    expect(call.endNs).toBeGreaterThanOrEqual(copy.endNs);
    expect(
      apiOps(pinned, 'cudaMemcpyAsync')[0]!.endNs - apiOps(pinned, 'cudaMemcpyAsync')[0]!.startNs,
    ).toBe(h100.api.memcpy);
    // pageable: slower link and no overlap between chunks
    expect(makespanNs(pageable)).toBeGreaterThan(2 * makespanNs(pinned));
    const kernels = gpuOps(pageable, 'kernel');
    const h2d = gpuOps(pageable, 'copy-htod');
    expect(overlapNs(kernels[0]!, h2d[1]!)).toBe(0);
    expect(
      overlapNs(gpuOps(pinned, 'kernel')[0]!, gpuOps(pinned, 'copy-htod')[1]!),
    ).toBeGreaterThan(0);
  });

  it('cudaMalloc and cudaFree wait for the device; cudaMallocAsync does not', () => {
    const sync = runPreset('malloc-in-loop', { allocator: 'malloc', iterations: 4 }, h100);
    const kernels = gpuOps(sync, 'kernel');
    const frees = apiOps(sync, 'cudaFree');
    for (let i = 0; i < 4; i++) {
      expect(frees[i]!.endNs).toBeGreaterThanOrEqual(kernels[i]!.endNs);
    }
    const async = runPreset('malloc-in-loop', { allocator: 'malloc-async', iterations: 4 }, h100);
    const launches = apiOps(async, 'cudaLaunchKernel');
    const asyncKernels = gpuOps(async, 'kernel');
    // every launch is issued before the first kernel ends: the host never waited
    expect(launches[3]!.endNs).toBeLessThan(asyncKernels[0]!.endNs);
    expect(gpuOps(async, 'alloc')).toHaveLength(4);
    expect(makespanNs(async)).toBeLessThan(makespanNs(sync));
  });

  it('one sync at the end beats a sync per chunk', () => {
    const every = makespanNs(runPreset('over-sync', { syncEveryChunk: true }, h100));
    const once = makespanNs(runPreset('over-sync', { syncEveryChunk: false }, h100));
    expect(once).toBeLessThan(every * 0.8);
  });
});

describe('engines and queues', () => {
  const copyPair = {
    name: 'two directions',
    buffers: [
      { name: 'h', kind: 'host-pinned', size: '64MiB' },
      { name: 'd', kind: 'device', size: '64MiB' },
    ],
    streams: [{ name: 's', count: 2, type: 'non-blocking' }],
    threads: [
      {
        name: 'main',
        ops: [
          { op: 'copy', src: 'h', dst: 'd', bytes: '32MiB', stream: 's[0]' },
          {
            op: 'copy',
            src: 'd',
            dst: 'h',
            srcOffset: '32MiB',
            dstOffset: '32MiB',
            stream: 's[1]',
          },
          { op: 'deviceSync' },
        ],
      },
    ],
  };

  it('two copy engines move H2D and D2H at once; one engine takes them in turn', () => {
    const two = runSpec(copyPair, deviceProfiles.c2050);
    expect(overlapNs(gpuOps(two, 'copy-htod')[0]!, gpuOps(two, 'copy-dtoh')[0]!)).toBeGreaterThan(
      0,
    );
    const one = runSpec(copyPair, deviceProfiles.c1060);
    expect(overlapNs(gpuOps(one, 'copy-htod')[0]!, gpuOps(one, 'copy-dtoh')[0]!)).toBe(0);
  });

  // s[0]: a long kernel, then a D2H that must wait for it; s[1]: an independent H2D issued after.
  const falseDependency = {
    name: 'false dependency',
    buffers: [
      { name: 'h', kind: 'host-pinned', size: '8MiB' },
      { name: 'd', kind: 'device', size: '8MiB' },
    ],
    streams: [{ name: 's', count: 2 }],
    threads: [
      {
        name: 'main',
        ops: [
          { op: 'kernel', duration: '2ms', grid: 4, stream: 's[0]' },
          { op: 'copy', src: 'd', dst: 'h', bytes: '4MiB', stream: 's[0]' },
          { op: 'copy', src: 'h', dst: 'd', srcOffset: '4MiB', dstOffset: '4MiB', stream: 's[1]' },
          { op: 'deviceSync' },
        ],
      },
    ],
  };

  it('one copy queue makes an independent copy wait behind a blocked one; Hyper-Q does not', () => {
    const fermi = runSpec(falseDependency, deviceProfiles.c1060);
    const kernelEnd = gpuOps(fermi, 'kernel')[0]!.endNs;
    expect(gpuOps(fermi, 'copy-htod')[0]!.startNs).toBeGreaterThanOrEqual(kernelEnd);
    const kepler = runSpec(falseDependency, deviceProfiles.k20c);
    expect(gpuOps(kepler, 'copy-htod')[0]!.startNs).toBeLessThan(
      gpuOps(kepler, 'kernel')[0]!.endNs,
    );
  });

  it('streams that share a hardware connection falsely depend on each other', () => {
    // 9 streams on K20c's 8 connections, mapped by creation order: the legacy stream is 0,
    // s[0] is 1 … s[8] is 9, and 9 mod 8 = 1 puts s[8] in the queue of s[0].
    const spec = {
      name: 'aliasing',
      streams: [{ name: 's', count: 9, type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            { op: 'kernel', name: 'long', duration: '1ms', grid: 1, stream: 's[0]' },
            { op: 'kernel', name: 'after-long', duration: '10us', grid: 1, stream: 's[0]' },
            { op: 'kernel', name: 'aliased', duration: '10us', grid: 1, stream: 's[8]' },
            { op: 'kernel', name: 'own-queue', duration: '10us', grid: 1, stream: 's[1]' },
            { op: 'deviceSync' },
          ],
        },
      ],
    };
    const trace = runSpec(spec, deviceProfiles.k20c);
    const byName = (n: string) => gpuOps(trace).find((o) => o.name === n)!;
    expect(byName('aliased').startNs).toBeGreaterThanOrEqual(byName('long').endNs);
    expect(byName('own-queue').startNs).toBeLessThan(byName('long').endNs);
  });

  it('a high-priority stream gets SMs first when they free up', () => {
    const urgentWaitNs = (usePriority: boolean): number => {
      const trace = runPreset('priorities', { usePriority }, h100);
      const urgent = gpuOps(trace).filter((o) => o.name.startsWith('urgent'));
      const launches = apiOps(trace, 'cudaLaunchKernel').slice(-urgent.length);
      return Math.max(...urgent.map((u, i) => u.startNs - launches[i]!.endNs));
    };
    const withPriority = urgentWaitNs(true);
    const without = urgentWaitNs(false);
    expect(withPriority).toBeLessThan(200_000);
    expect(without).toBeGreaterThan(3 * withPriority);
  });

  it('fixed-work kernels slow down when they share SMs; timed kernels do not', () => {
    const pair = (mode: 'duration' | 'iterations', concurrent: boolean) => ({
      name: 'pair',
      streams: [{ name: 's', count: 2, type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [0, 1].map((i) => ({
            op: 'kernel',
            name: `k${i}`,
            [mode]: mode === 'duration' ? '100us' : 50_000,
            grid: 132 * 4,
            block: 256,
            stream: concurrent ? `s[${i}]` : 's[0]',
          })),
        },
      ],
    });
    const work = gpuOps(runSpec(pair('iterations', true), h100), 'kernel');
    const alone = gpuOps(runSpec(pair('iterations', false), h100), 'kernel')[0]!;
    expect(overlapNs(work[0]!, work[1]!)).toBeGreaterThan(0);
    expect(work[0]!.endNs - work[0]!.startNs).toBeGreaterThan(1.5 * (alone.endNs - alone.startNs));
    const timed = gpuOps(runSpec(pair('duration', true), h100), 'kernel');
    expect(timed[0]!.endNs - timed[0]!.startNs).toBe(100_000 + h100.spinOffsetNs);
  });

  it('a fixed-work wave lasts as long as its busiest SM: 7 blocks and one more take as long as 8', () => {
    const sms = h100.device.smCount;
    const durationNs = (grid: number, block = 256): number => {
      const k = gpuOps(
        runSpec(
          {
            name: 'one wave',
            streams: [{ name: 's', type: 'non-blocking' }],
            threads: [
              {
                name: 'main',
                ops: [{ op: 'kernel', iterations: 10_000, grid, block, stream: 's' }],
              },
            ],
          },
          h100,
        ),
        'kernel',
      )[0]!;
      return k.endNs - k.startNs;
    };
    // 8 warps a block, saturated either way: a full wave of 8 per SM, one SM of 8 among 7s
    expect(durationNs(sms * 7 + 1)).toBeCloseTo(durationNs(sms * 8), -1);
    expect(durationNs(sms * 7)).toBeLessThan(0.9 * durationNs(sms * 8));
    // below saturation a second block on some SMs slows nothing: one warp each, 133 as fast as 132
    expect(durationNs(sms + 1, 32)).toBe(durationNs(sms, 32));
    expect(durationNs(2 * sms + 1, 32)).toBe(durationNs(sms, 32));
  });

  it('two kernels that each fill the GPU run one after the other; small ones side by side', () => {
    const twoKernels = (blocks: number) => ({
      name: 'two kernels',
      streams: [{ name: 's', count: 2, type: 'non-blocking' }],
      threads: [
        {
          name: 'main',
          ops: [
            { op: 'kernel', name: 'a', duration: '1ms', grid: blocks, block: 1024, stream: 's[0]' },
            { op: 'kernel', name: 'b', duration: '1ms', grid: blocks, block: 1024, stream: 's[1]' },
            { op: 'deviceSync' },
          ],
        },
      ],
    });
    // 264 blocks of 1024 threads = 2 per SM on 132 SMs: the whole GPU (research: H200 probe).
    // b's blocks take SMs only as a's blocks end: no earlier than a's first blocks (1 ms), and
    // they share the GPU only while a's second blocks, held on their half-full SMs, drain (that
    // hold, at most 32 warps − crowdedStartWarps, is all the overlap there is).
    const h200 = deviceProfiles.h200;
    const [a, b] = gpuOps(runSpec(twoKernels(264), h200), 'kernel');
    expect(b!.startNs).toBeGreaterThanOrEqual(a!.startNs + 1_000_000);
    expect(overlapNs(a!, b!)).toBeLessThanOrEqual(
      (32 - h200.crowdedStartWarps) * h200.crowdedStartNsPerWarp + h200.spinOffsetNs + 1,
    );
    const [c, d] = gpuOps(runSpec(twoKernels(1), deviceProfiles.h200), 'kernel');
    expect(overlapNs(c!, d!)).toBeGreaterThan(900_000);
  });

  it('more streams speed up small kernels until the GPU is full', () => {
    const times = [1, 2, 8, 32].map((streams) =>
      makespanNs(runPreset('stream-count', { streams }, h100)),
    );
    expect(times[1]!).toBeLessThan(times[0]! * 0.6);
    expect(times[2]!).toBeLessThan(times[1]! * 0.6);
    // 8 kernels of 132 blocks fill the GPU's 1056 block slots: 32 streams gain little more
    expect(times[3]!).toBeGreaterThan(times[2]! * 0.8);
  });
});

describe('events and graphs', () => {
  it('an event orders two streams without stalling a third; a device sync stalls everything', () => {
    const withEvent = runPreset('events-vs-device-sync', { dependency: 'event' }, h100);
    const produce = gpuOps(withEvent).filter((o) => o.name.startsWith('produce'));
    const consume = gpuOps(withEvent).filter((o) => o.name.startsWith('consume'));
    produce.forEach((p, i) => expect(consume[i]!.startNs).toBeGreaterThanOrEqual(p.endNs));
    const withSync = runPreset('events-vs-device-sync', { dependency: 'device-sync' }, h100);
    expect(makespanNs(withEvent)).toBeLessThan(makespanNs(withSync) * 0.8);
  });

  it('graph launches replace many launch calls and run their nodes flagged as graph nodes', () => {
    const graph = runPreset('graphs', { useGraph: true }, h100);
    const launches = runPreset('graphs', { useGraph: false }, h100);
    expect(apiOps(graph, 'cudaGraphLaunch')).toHaveLength(20);
    expect(apiOps(graph, 'cudaLaunchKernel')).toHaveLength(0);
    const nodes = gpuOps(graph, 'kernel');
    expect(nodes).toHaveLength(400);
    expect(nodes.every((n) => (n.flags & 2) !== 0)).toBe(true);
    expect(makespanNs(graph)).toBeLessThan(makespanNs(launches) * 0.7);
  });
});
