import { OpFlag, OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { TestTraceBuilder, pageableToDevice, pinnedToDevice } from './test-trace-builder.ts';
import type { Gap } from './types.ts';

function streamGaps(b: TestTraceBuilder): Gap[] {
  return analyzeTrace(b.trace).gaps.stream.listed;
}

describe('stream gaps and their causes', () => {
  it('attributes a wait on an event to the record on the other stream', () => {
    const b = new TestTraceBuilder();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    b.kernel(s1, 0, 100, 'producer');
    b.kernel(s2, 0, 20, 'early');
    b.eventWait(s1, 100, s2, 20);
    b.kernel(s2, 101, 200, 'consumer');
    const gaps = streamGaps(b);
    // s2 idle from 20 (end of "early") to 101 (start of "consumer") = 81 ns.
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toMatchObject({ fromNs: 20, toNs: 101, durNs: 81, cause: 'event-wait' });
    expect(gaps[0]!.detail).toContain('recorded on Stream 1 after kernel "producer"');
  });

  it('attributes a gap on a blocking stream to the legacy default stream barrier', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const legacy = b.stream(0, 'legacy-default');
    const s1 = b.stream(1, 'blocking');
    const api = (t: number) => ({
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: t,
      endNs: t + 2,
    });
    b.kernel(s1, 5, 40, 'a', api(0));
    b.kernel(legacy, 50, 150, 'on-default', api(3));
    b.kernel(s1, 151, 200, 'b', api(6));
    const gaps = streamGaps(b);
    // s1 idle 40 → 151: "b" was issued at 6, after "on-default" at 3, so it waited for it.
    const onS1 = gaps.find((g) => g.track === s1)!;
    expect(onS1).toMatchObject({ fromNs: 40, toNs: 151, cause: 'legacy-default-stream' });
    // The device idled 40 → 50 and 150 → 151: both barriers had lifted when those gaps began
    // ("a" ended at 40, "on-default" at 150), so what is left is launch latency.
    const device = analyzeTrace(b.trace).gaps.device.listed;
    expect(device.map((g) => [g.fromNs, g.toNs, g.cause])).toEqual([
      [40, 50, 'launch-latency'],
      [150, 151, 'launch-latency'],
    ]);
  });

  it('does not blame the legacy stream for non-blocking streams', () => {
    const b = new TestTraceBuilder();
    const legacy = b.stream(0, 'legacy-default');
    const s1 = b.stream(1, 'non-blocking');
    b.kernel(s1, 0, 40);
    b.kernel(legacy, 50, 150);
    b.kernel(s1, 151, 200);
    expect(streamGaps(b).find((g) => g.track === s1)!.cause).toBe('unknown');
  });

  it('attributes a late launch after cudaStreamSynchronize to host-sync', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.kernel(s, 10, 100, 'k1', { hostTrack: host, name: 'cudaLaunchKernel', startNs: 0, endNs: 5 });
    const sync = b.apiCall({
      hostTrack: host,
      name: 'cudaStreamSynchronize',
      startNs: 6,
      endNs: 102,
    });
    b.kernel(s, 112, 200, 'k2', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 103,
      endNs: 108,
    });
    const analysis = analyzeTrace(b.trace);
    // Stream idle 100 → 112; the host was inside the synchronize when the stream went idle.
    expect(analysis.gaps.stream.listed).toEqual([
      expect.objectContaining({
        fromNs: 100,
        toNs: 112,
        cause: 'host-sync',
        causeOp: sync,
      }) as unknown,
    ]);
    expect(analysis.gaps.device.nsByCause['host-sync']).toBe(12);
  });

  it('attributes the gap after a synchronous copy to sync-copy', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.gpu({
      track: s,
      kind: OpKind.CopyHtoD,
      startNs: 5,
      endNs: 100,
      bytes: 1 << 20,
      memKinds: pageableToDevice,
      flags: OpFlag.Sync,
      api: { hostTrack: host, name: 'cudaMemcpy', startNs: 0, endNs: 104 },
    });
    b.kernel(s, 115, 200, 'k', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 105,
      endNs: 110,
    });
    expect(streamGaps(b)[0]).toMatchObject({ fromNs: 100, toNs: 115, cause: 'sync-copy' });
  });

  it('attributes the gap after cudaFree to its implicit synchronization', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.kernel(s, 10, 100, 'k1', { hostTrack: host, name: 'cudaLaunchKernel', startNs: 0, endNs: 5 });
    b.apiCall({ hostTrack: host, name: 'cudaFree', startNs: 6, endNs: 101 });
    b.kernel(s, 110, 200, 'k2', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 102,
      endNs: 105,
    });
    expect(streamGaps(b)[0]!.cause).toBe('alloc-sync');
  });

  it('attributes a gap while the host computes to host-busy', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.kernel(s, 10, 100, 'k1', { hostTrack: host, name: 'cudaLaunchKernel', startNs: 0, endNs: 5 });
    const work = b.apiCall(
      { hostTrack: host, name: 'prepare', startNs: 6, endNs: 400 },
      0,
      OpKind.HostWork,
    );
    b.kernel(s, 410, 500, 'k2', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 401,
      endNs: 405,
    });
    expect(streamGaps(b)[0]).toMatchObject({ cause: 'host-busy', causeOp: work, durNs: 310 });
  });

  it('calls a gap launch latency when the op was issued before the stream went idle', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.kernel(s, 10, 100, 'k1', { hostTrack: host, name: 'cudaLaunchKernel', startNs: 0, endNs: 5 });
    b.kernel(s, 104, 200, 'k2', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 6,
      endNs: 9,
    });
    expect(streamGaps(b)[0]).toMatchObject({ fromNs: 100, toNs: 104, cause: 'launch-latency' });
  });

  it('calls a long wait with nothing recorded to explain it unknown, not launch latency', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.kernel(s, 10, 100, 'k1', { hostTrack: host, name: 'cudaLaunchKernel', startNs: 0, endNs: 5 });
    // Issued at 9, started 200 µs after the stream went idle: longer than the 100 µs cutoff.
    b.kernel(s, 200_100, 200_200, 'k2', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 6,
      endNs: 9,
    });
    expect(streamGaps(b)[0]).toMatchObject({ durNs: 200_000, cause: 'unknown' });
    // The same word as the cause, not "no recorded cause" beside a cause called unknown.
    expect(streamGaps(b)[0]!.detail).toContain('idle 200 µs: cause unknown; nothing recorded');
  });

  it('attributes a copy that waited for its engine to engine-busy', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    const api = (t: number) => ({
      hostTrack: host,
      name: 'cudaMemcpyAsync',
      startNs: t,
      endNs: t + 1,
    });
    const holder = b.gpu({
      track: s1,
      kind: OpKind.CopyHtoD,
      startNs: 0,
      endNs: 1000,
      bytes: 1e4,
      memKinds: pinnedToDevice,
      api: api(0),
    });
    b.kernel(s2, 0, 10, 'k', { hostTrack: host, name: 'cudaLaunchKernel', startNs: 0, endNs: 1 });
    b.gpu({
      track: s2,
      kind: OpKind.CopyHtoD,
      startNs: 1000,
      endNs: 2000,
      bytes: 1e4,
      memKinds: pinnedToDevice,
      api: api(2),
    });
    const gap = streamGaps(b).find((g) => g.track === s2)!;
    expect(gap).toMatchObject({ fromNs: 10, toNs: 1000, cause: 'engine-busy' });
    // It names the copy that held the engine, as the gap's details show it ("Waited for").
    expect(gap.causeOp).toBe(holder);
    expect(gap.detail).toContain(
      'waited for its engine, busy with copy "[CUDA memcpy Host-to-Device]" on Stream 1',
    );
  });

  it('finds device-wide gaps between the first and last op only', () => {
    const b = new TestTraceBuilder();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    b.kernel(s1, 100, 200);
    b.kernel(s2, 150, 300);
    b.kernel(s1, 400, 500);
    const device = analyzeTrace(b.trace).gaps.device;
    // Busy [100,300) and [400,500): one gap of 100 ns.
    expect(device.count).toBe(1);
    expect(device.listed[0]).toMatchObject({ track: -1, fromNs: 300, toNs: 400, cause: 'unknown' });
  });

  it('keeps only the largest gaps in the list and says so', () => {
    const b = new TestTraceBuilder();
    const s = b.stream(1);
    // Gaps of 1, 2, ..., 9 ns between ten kernels.
    let t = 0;
    for (let k = 0; k < 10; k++) {
      b.kernel(s, t, t + 10);
      t += 10 + k + 1;
    }
    const report = analyzeTrace(b.trace, undefined, { maxListedGaps: 3 }).gaps.stream;
    expect(report.count).toBe(9);
    expect(report.totalNs).toBe(45);
    expect(report.truncated).toBe(true);
    expect(report.listed.map((g) => g.durNs)).toEqual([7, 8, 9]);
  });
});
