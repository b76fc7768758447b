import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildPreset, presets, validateWorkload } from '@streamscope/workload';
import { deviceProfiles } from './profiles.ts';
import { SimulationError, simulate } from './simulation.ts';
import { apiOps, gpuOps, runSpec } from './test-helpers.ts';

describe('every preset on every profile', () => {
  it('runs to the end with every thread finished and ops in time order per track', () => {
    for (const preset of presets) {
      const result = validateWorkload(buildPreset(preset.name, {}));
      if (!result.ok) {
        throw new Error(JSON.stringify(result.errors));
      }
      for (const profile of Object.values(deviceProfiles)) {
        if (result.plan.groups.some((g) => g.devices.length > 1) && profile.links === undefined) {
          // Collectives over several GPUs need a host with links between them.
          expect(() => simulate(result.plan, profile)).toThrow(SimulationError);
          continue;
        }
        const trace = simulate(result.plan, profile);
        expect(trace.meta.warnings, `${preset.name} on ${profile.name}`).toBeUndefined();
        const c = trace.ops.columns();
        for (let t = 0; t < trace.tracks.length; t++) {
          const order = trace.ops.trackOrder(t);
          for (let k = 0; k < order.length; k++) {
            const i = order[k]!;
            expect(c.endNs[i]! >= c.startNs[i]!, `${preset.name} ${profile.name}`).toBe(true);
          }
        }
        // GPU ops of one stream never overlap: a stream runs one op at a time.
        for (let t = 0; t < trace.tracks.length; t++) {
          if (trace.tracks[t]!.kind !== 'gpu-stream') {
            continue;
          }
          const order = trace.ops.trackOrder(t);
          for (let k = 1; k < order.length; k++) {
            expect(
              c.startNs[order[k]!]!,
              `${preset.name} ${profile.name} track ${t}`,
            ).toBeGreaterThanOrEqual(c.endNs[order[k - 1]!]!);
          }
        }
      }
    }
  });
});

describe('host functions, threads and devices', () => {
  it('a host function holds its stream for its duration after the callback latency', () => {
    const trace = runSpec(
      {
        name: 'callback',
        streams: [{ name: 's', type: 'non-blocking' }],
        threads: [
          {
            name: 'main',
            ops: [
              { op: 'kernel', name: 'before', duration: '100us', stream: 's' },
              { op: 'hostFunc', name: 'cb', duration: '50us', stream: 's' },
              { op: 'kernel', name: 'after', duration: '100us', stream: 's' },
              { op: 'streamSync', stream: 's' },
            ],
          },
        ],
      },
      deviceProfiles.h100,
    );
    const [before, cb, after] = gpuOps(trace);
    expect(cb!.kind).toBe('host-func');
    expect(cb!.startNs - before!.endNs).toBeGreaterThanOrEqual(
      deviceProfiles.h100.hostFuncLatencyNs,
    );
    expect(cb!.endNs - cb!.startNs).toBe(50_000);
    expect(after!.startNs).toBeGreaterThanOrEqual(cb!.endNs);
  });

  it('each thread has its own per-thread default stream, and a cross-thread wait orders them', () => {
    const trace = runSpec(
      {
        name: 'threads',
        events: [{ name: 'ready' }],
        threads: [
          {
            name: 'producer',
            ops: [
              { op: 'kernel', name: 'produce', duration: '300us', stream: 'per-thread' },
              { op: 'eventRecord', event: 'ready', stream: 'per-thread' },
            ],
          },
          {
            name: 'consumer',
            ops: [
              { op: 'hostWork', duration: '10us' },
              { op: 'streamWait', event: 'ready', stream: 'per-thread' },
              { op: 'kernel', name: 'consume', duration: '100us', stream: 'per-thread' },
            ],
          },
        ],
      },
      deviceProfiles.h100,
    );
    expect(trace.tracks.filter((t) => t.kind === 'gpu-stream').map((t) => t.name)).toEqual([
      'per-thread(producer)',
      'per-thread(consumer)',
    ]);
    const produce = gpuOps(trace).find((o) => o.name === 'produce')!;
    const consume = gpuOps(trace).find((o) => o.name === 'consume')!;
    expect(consume.startNs).toBeGreaterThanOrEqual(produce.endNs);
  });

  it('peer copies between two devices run on their own streams', () => {
    const trace = runSpec(
      {
        name: 'p2p',
        devices: [{ name: 'gpu0' }, { name: 'gpu1' }],
        buffers: [
          { name: 'a', kind: 'device', size: '64MiB', device: 'gpu0' },
          { name: 'b', kind: 'device', size: '64MiB', device: 'gpu1' },
        ],
        streams: [{ name: 's', device: 'gpu0' }],
        threads: [
          {
            name: 'main',
            ops: [
              { op: 'copy', src: 'a', dst: 'b', stream: 's' },
              { op: 'streamSync', stream: 's' },
            ],
          },
        ],
      },
      deviceProfiles.h200,
    );
    const copy = gpuOps(trace, 'copy-ptop')[0]!;
    // 64 MiB at the profile's 40 GB/s peer bandwidth, plus the copy setup
    expect(copy.endNs - copy.startNs).toBeCloseTo(
      ((64 * 1024 ** 2) / 40e9) * 1e9 + deviceProfiles.h200.copyFixedNs,
      -3,
    );
    expect(trace.devices).toHaveLength(2);
    expect(apiOps(trace, 'cudaMemcpyPeerAsync')).toHaveLength(1);
  });
});

describe('random workloads', () => {
  const opArb = fc.oneof(
    fc.record({
      op: fc.constant('kernel'),
      duration: fc.integer({ min: 1, max: 200 }).map((n) => `${n}us`),
      grid: fc.integer({ min: 1, max: 3000 }),
      stream: fc.constantFrom('legacy', 'per-thread', 's[0]', 's[1]', 's[2]'),
    }),
    fc.record({
      op: fc.constant('copy'),
      src: fc.constantFrom('h', 'p'),
      dst: fc.constant('d'),
      bytes: fc.constantFrom('64KiB', '1MiB'),
      async: fc.boolean(),
      stream: fc.constantFrom('legacy', 'per-thread'),
    }),
    fc.record({
      op: fc.constant('copy'),
      src: fc.constant('d'),
      dst: fc.constantFrom('h', 'p'),
      bytes: fc.constantFrom('64KiB', '1MiB'),
      stream: fc.constantFrom('s[0]', 's[1]', 's[2]'),
    }),
    fc.record({
      op: fc.constant('memset'),
      dst: fc.constant('d'),
      bytes: fc.constant('1MiB'),
      stream: fc.constantFrom('s[0]', 'legacy'),
    }),
    fc.record({
      op: fc.constant('eventRecord'),
      event: fc.constant('e'),
      stream: fc.constantFrom('s[0]', 's[1]', 'legacy'),
    }),
    fc.record({ op: fc.constant('streamSync'), stream: fc.constantFrom('s[0]', 's[2]', 'legacy') }),
    fc.record({ op: fc.constant('deviceSync') }),
    fc.record({ op: fc.constant('hostWork'), duration: fc.constantFrom('5us', '50us') }),
  );

  it('always finish, on every profile, with each API call linked to its GPU op', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        fc.constantFrom('c1060', 'c2050', 'k20c', 'h100'),
        (ops, profile) => {
          const spec = {
            name: 'random',
            buffers: [
              { name: 'h', kind: 'host-pinned', size: '4MiB' },
              { name: 'p', kind: 'host-pageable', size: '4MiB' },
              { name: 'd', kind: 'device', size: '4MiB' },
            ],
            streams: [{ name: 's', count: 3 }],
            events: [{ name: 'e' }],
            threads: [
              {
                name: 'main',
                ops: [
                  { op: 'eventRecord', event: 'e' },
                  ...ops,
                  { op: 'streamWait', event: 'e', stream: 's[1]' },
                  { op: 'deviceSync' },
                ],
              },
            ],
          };
          const trace = runSpec(spec, deviceProfiles[profile]);
          expect(trace.meta.warnings).toBeUndefined();
          const gpu = gpuOps(trace);
          expect(trace.flows.count).toBeGreaterThanOrEqual(gpu.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});
