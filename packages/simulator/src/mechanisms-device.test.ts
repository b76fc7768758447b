import { describe, expect, it } from 'vitest';
import type { WorkloadOpInput } from '@streamscope/workload';
import type { DeviceProfile } from './profile.ts';
import { deviceProfiles } from './profiles.ts';
import { apiOps, gpuOps, overlapNs, runSpec } from './test-helpers.ts';

// The device side of the mechanisms issue #20 models, each shown on its own.

const base = deviceProfiles.h100;

function spec(ops: WorkloadOpInput[], streams: unknown[], buffers: unknown[] = []) {
  return {
    name: 'mechanism',
    buffers,
    streams,
    events: [{ name: 'e' }],
    threads: [{ name: 'main', ops: [...ops, { op: 'deviceSync' }] }],
  };
}

const nonBlocking = (...names: string[]) =>
  names.map((name) => ({ name, type: 'non-blocking' as const }));

describe('stream priorities: preemption at block boundaries', () => {
  // A GPU full of 8-warp blocks lasting `blockUs`, then an urgent kernel issued mid-block.
  const urgentLatencyNs = (blockUs: number, priority: number): number => {
    const trace = runSpec(
      spec(
        [
          {
            op: 'kernel',
            name: 'bulk',
            duration: `${blockUs}us`,
            grid: base.device.smCount * 8 * 4,
            block: 256,
            stream: 'bulk',
          },
          { op: 'hostWork', duration: `${blockUs / 2}us` },
          { op: 'kernel', name: 'urgent', duration: '20us', grid: 32, stream: 'urgent' },
        ],
        [
          { name: 'bulk', type: 'non-blocking', priority: 0 },
          { name: 'urgent', type: 'non-blocking', priority },
        ],
      ),
      base,
    );
    const urgent = gpuOps(trace).find((o) => o.name === 'urgent')!;
    const call = apiOps(trace, 'cudaLaunchKernel')[1]!;
    return urgent.endNs - call.startNs;
  };

  it('a high-priority kernel waits for running blocks to end, longer for longer blocks', () => {
    const short = urgentLatencyNs(50, -1);
    const long = urgentLatencyNs(200, -1);
    // not instant: at least its own 20 µs plus part of a block
    expect(short).toBeGreaterThan(20_000 + base.submitLatencyNs);
    expect(long).toBeGreaterThan(short);
  });

  it('a high-priority kernel arriving mid-block starts a share of the block duration later', () => {
    // One full wave of 8-warp blocks lasting 200 µs (no crowding: they all end together), and
    // an urgent kernel issued while they run: its start after the bulk kernel's and after it
    // was ready (its launch call's end + the submit latency).
    const urgentStart = (priorityWaitShare: number, priority: number) => {
      const profile: DeviceProfile = { ...base, priorityWaitShare, crowdedStartNsPerWarp: 0 };
      const trace = runSpec(
        spec(
          [
            {
              op: 'kernel',
              name: 'bulk',
              duration: '200us',
              grid: base.device.smCount * 8,
              block: 256,
              stream: 'bulk',
            },
            { op: 'kernel', name: 'later', duration: '5us', stream: 'bulk' },
            { op: 'hostWork', duration: '30us' },
            { op: 'kernel', name: 'urgent', duration: '20us', grid: 32, stream: 'urgent' },
          ],
          [
            { name: 'bulk', type: 'non-blocking', priority: 0 },
            { name: 'urgent', type: 'non-blocking', priority },
          ],
        ),
        profile,
      );
      const ops = gpuOps(trace);
      const bulk = ops.find((o) => o.name === 'bulk')!;
      const urgent = ops.find((o) => o.name === 'urgent')!;
      const readyNs = apiOps(trace, 'cudaLaunchKernel')[2]!.endNs + base.submitLatencyNs;
      return { afterBulkNs: urgent.startNs - bulk.startNs, afterReadyNs: urgent.startNs - readyNs };
    };
    // share 0: at the first block boundary (+200 µs); share 1: a whole block after it was ready
    const atBoundary = urgentStart(0, -1);
    expect(atBoundary.afterBulkNs).toBeCloseTo(200_000 + base.spinOffsetNs, -3);
    expect(atBoundary.afterReadyNs).toBeLessThan(150_000);
    expect(urgentStart(1, -1).afterReadyNs).toBeCloseTo(200_000 + base.spinOffsetNs, -3);
    // without a lower-priority kernel running beside it (same priority) no wait is added
    expect(urgentStart(1, 0)).toEqual(urgentStart(0, 0));
  });

  it('at the same priority it waits until the earlier kernel has placed all its blocks', () => {
    for (const blockUs of [50, 200]) {
      expect(urgentLatencyNs(blockUs, 0)).toBeGreaterThan(
        urgentLatencyNs(blockUs, -1) + 2 * blockUs * 1000,
      );
    }
  });

  it('a kernel waiting out its stream gap leaves the SMs to a kernel ready sooner', () => {
    const profile: DeviceProfile = { ...base, streamGapNs: 20_000, crowdedStartNsPerWarp: 0 };
    const full = { grid: base.device.smCount * 8, block: 256 };
    const trace = runSpec(
      spec(
        [
          { op: 'kernel', name: 'a', duration: '100us', ...full, stream: 's' },
          { op: 'kernel', name: 'b', duration: '100us', ...full, stream: 's' },
          { op: 'kernel', name: 'other', duration: '100us', ...full, stream: 't' },
        ],
        nonBlocking('s', 't'),
      ),
      profile,
    );
    const [a, b, other] = ['a', 'b', 'other'].map((n) => gpuOps(trace).find((o) => o.name === n)!);
    // a fills the GPU; when it ends, b must wait 20 µs for its stream: `other` takes the SMs
    expect(other!.startNs).toBeGreaterThanOrEqual(a!.endNs);
    expect(b!.startNs).toBeGreaterThanOrEqual(other!.endNs);
  });
});

describe('timed blocks on crowded SMs', () => {
  it('end late by up to a hold in proportion to the warps already on their SM', () => {
    const profile: DeviceProfile = { ...base, crowdedStartWarps: 24, crowdedStartNsPerWarp: 1_000 };
    const durationNs = (blocksPerSm: number): number => {
      const trace = runSpec(
        spec(
          [
            {
              op: 'kernel',
              duration: '100us',
              grid: base.device.smCount * blocksPerSm,
              block: 256,
              stream: 's',
            },
          ],
          nonBlocking('s'),
        ),
        profile,
      );
      const k = gpuOps(trace, 'kernel')[0]!;
      return k.endNs - k.startNs;
    };
    // 4 blocks of 8 warps: the last lands beside 24 warps, on time; 8: beside 56, 32 µs late
    expect(durationNs(4)).toBe(100_000 + base.spinOffsetNs);
    expect(durationNs(8)).toBe(100_000 + base.spinOffsetNs + 32_000);
  });

  it('are held spread out, so some of a crowded wave end on time and free their room', () => {
    const profile: DeviceProfile = { ...base, crowdedStartWarps: 24, crowdedStartNsPerWarp: 2_000 };
    const sms = base.device.smCount;
    const kernel = (name: string, duration: string, grid: number, stream: string) =>
      ({ op: 'kernel', name, duration, grid, block: 1024, stream }) as const;
    // A long kernel takes 32 warps of every SM; a wave of 100 µs lands beside it (16 µs held
    // at most) and fills the SMs; a one-block kernel needs the room of one of that wave's blocks.
    const trace = runSpec(
      spec(
        [
          kernel('long', '1000us', sms, 'a'),
          kernel('wave', '100us', sms, 'b'),
          kernel('one', '10us', 1, 'c'),
        ],
        nonBlocking('a', 'b', 'c'),
      ),
      profile,
    );
    const [, wave, one] = ['long', 'wave', 'one'].map((name) =>
      gpuOps(trace, 'kernel').find((k) => k.name === name)!,
    );
    // the wave as a whole ends at its longest hold ...
    expect(wave!.endNs - wave!.startNs).toBe(100_000 + base.spinOffsetNs + 16_000);
    // ... but its blocks that end on time make room for the one-block kernel at once
    expect(one!.startNs - wave!.startNs).toBe(100_000 + base.spinOffsetNs);
  });
});

describe('hardware queues', () => {
  // Stream 0 holds a long kernel and a short one behind it; then a short kernel on stream j.
  const probeWaits = (connections: number, j: number): boolean => {
    const streams = nonBlocking(...Array.from({ length: 17 }, (_, i) => `q${i}`));
    const trace = runSpec(
      spec(
        [
          { op: 'kernel', name: 'long', duration: '300us', stream: 'q0' },
          { op: 'kernel', name: 'after', duration: '10us', stream: 'q0' },
          { op: 'kernel', name: 'probe', duration: '10us', stream: `q${j}` },
        ],
        streams,
      ),
      { ...base, connections },
    );
    const long = gpuOps(trace).find((o) => o.name === 'long')!;
    return gpuOps(trace).find((o) => o.name === 'probe')!.startNs >= long.endNs;
  };

  it('streams beyond the connections share queues and wait behind each other', () => {
    // the legacy stream is ordinal 0 and q0 ordinal 1: with 8 queues q8 shares q0's queue
    expect(probeWaits(8, 8)).toBe(true);
    expect(probeWaits(8, 7)).toBe(false);
    expect(probeWaits(32, 8)).toBe(false);
  });
});

describe('gaps between ops on one stream', () => {
  const profile: DeviceProfile = {
    ...base,
    firstCallGapNs: 0,
    streamGapNs: 1_000,
    crossEngineGapNs: { toCompute: 5_000, toCopy: 8_000 },
    eventRecordGapNs: 2_000,
    eventWaitGapNs: 3_000,
  };
  const buffers = [
    { name: 'h', kind: 'host-pinned', size: '1MiB' },
    { name: 'd', kind: 'device', size: '1MiB' },
  ];

  it('are longer where work passes between a copy engine and the SMs', () => {
    const trace = runSpec(
      spec(
        [
          { op: 'copy', src: 'h', dst: 'd', stream: 's' },
          { op: 'kernel', name: 'k1', duration: '20us', stream: 's' },
          { op: 'kernel', name: 'k2', duration: '20us', stream: 's' },
          { op: 'copy', src: 'd', dst: 'h', stream: 's' },
        ],
        nonBlocking('s'),
        buffers,
      ),
      profile,
    );
    const [h2d, k1, k2, d2h] = gpuOps(trace);
    expect(k1!.startNs - h2d!.endNs).toBeCloseTo(5_000, -1);
    expect(k2!.startNs - k1!.endNs).toBeCloseTo(1_000, -1);
    expect(d2h!.startNs - k2!.endNs).toBeCloseTo(8_000, -1);
  });

  it('an event record completes after the op before it; the waiting stream goes on after it', () => {
    const trace = runSpec(
      spec(
        [
          { op: 'kernel', name: 'producer', duration: '100us', stream: 's' },
          { op: 'eventRecord', event: 'e', stream: 's' },
          { op: 'streamWait', event: 'e', stream: 't' },
          { op: 'kernel', name: 'consumer', duration: '10us', stream: 't' },
        ],
        nonBlocking('s', 't'),
      ),
      profile,
    );
    const producer = gpuOps(trace).find((o) => o.name === 'producer')!;
    const record = gpuOps(trace, 'event-record')[0]!;
    const consumer = gpuOps(trace).find((o) => o.name === 'consumer')!;
    expect(record.endNs - producer.endNs).toBeCloseTo(2_000, -1);
    expect(consumer.startNs - record.endNs).toBeCloseTo(3_000, -1);
  });
});

describe('copy engines', () => {
  const buffers = [
    { name: 'h', kind: 'host-pinned', size: '64MiB' },
    { name: 'd', kind: 'device', size: '64MiB' },
  ];
  const copies = (dirs: ('in' | 'out')[]): WorkloadOpInput[] =>
    dirs.map((dir, i) => ({
      op: 'copy',
      src: dir === 'in' ? 'h' : 'd',
      dst: dir === 'in' ? 'd' : 'h',
      bytes: '16MiB',
      srcOffset: `${i * 16}MiB`,
      dstOffset: `${i * 16}MiB`,
      stream: `c${i}`,
    }));

  it('copies one way take turns on one engine, a gap apart; the third engine serves peers', () => {
    const profile: DeviceProfile = {
      ...base,
      copyEngines: ['htod', 'dtoh', 'peer'],
      copyEngineGapNs: 2_000,
    };
    const [a, b] = gpuOps(
      runSpec(spec(copies(['in', 'in']), nonBlocking('c0', 'c1'), buffers), profile),
    );
    expect(overlapNs(a!, b!)).toBe(0);
    expect(b!.startNs - a!.endNs).toBeCloseTo(2_000, -1);
    // with an engine that takes any direction the second copy runs beside the first
    const any = gpuOps(
      runSpec(spec(copies(['in', 'in']), nonBlocking('c0', 'c1'), buffers), {
        ...profile,
        copyEngines: ['htod', 'dtoh', 'any'],
      }),
    );
    expect(overlapNs(any[0]!, any[1]!)).toBeGreaterThan(0);
  });

  it('each direction keeps its own share of its rate while both move data', () => {
    const profile: DeviceProfile = { ...base, duplexFactor: 0.5, duplexFactorDtoh: 1 };
    const ops = gpuOps(
      runSpec(spec(copies(['in', 'out']), nonBlocking('c0', 'c1'), buffers), profile),
    );
    const h2d = ops.find((o) => o.kind === 'copy-htod');
    const d2h = ops.find((o) => o.kind === 'copy-dtoh');
    const aloneNs = ((16 * 1024 * 1024) / base.copyBandwidthBytesPerS.htodPinned) * 1e9;
    const outAloneNs = ((16 * 1024 * 1024) / base.copyBandwidthBytesPerS.dtohPinned) * 1e9;
    // the copy in runs at half speed while the copy out runs (aloneNs + outAloneNs / 2 in all,
    // aloneNs without the duplex share); the copy out at full speed
    expect(h2d!.endNs - h2d!.startNs).toBeGreaterThan(aloneNs + 0.45 * outAloneNs);
    expect(d2h!.endNs - d2h!.startNs).toBeLessThan(1.1 * aloneNs + base.copyFixedNs);
  });
});
