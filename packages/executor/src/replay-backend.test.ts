import { FlowKind, OpKind, RangeKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { ReplayBackend } from './replay-backend.ts';

function stored(): Trace {
  const t = new Trace({ title: 'stored', timingMethod: 'cupti', sourceFormat: 'streamscope-cuda' });
  t.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
  t.addTrack({
    kind: 'gpu-stream',
    name: 's',
    pid: 1,
    deviceId: 0,
    contextId: 0,
    streamId: 1,
    streamType: 'blocking',
    priority: 0,
  });
  const api = t.strings.intern('cudaLaunchKernel');
  const k = t.strings.intern('k');
  // Kernel first in the table but ends last: replay must append in end order and remap flows.
  t.addOp({ startNs: 2_000, endNs: 30_000_000, track: 1, kind: OpKind.Kernel, nameId: k });
  t.addOp({ startNs: 1_000, endNs: 1_500, track: 0, kind: OpKind.ApiCall, nameId: api });
  t.flows.append(1, 0, FlowKind.ApiToGpu);
  t.ranges.append({
    startNs: 0,
    endNs: 1_600,
    track: 0,
    nameId: k,
    domainId: 0,
    depth: 0,
    kind: RangeKind.PushPop,
  });
  return t;
}

describe('the replay backend', () => {
  it('replays everything in end order with flows remapped', async () => {
    const run = new ReplayBackend().start({
      workload: null,
      replayOf: stored(),
      timeLimitMs: 5000,
      pace: 'fast',
    });
    await expect(run.done).resolves.toEqual({ status: 'finished' });
    const c = run.trace.ops.columns();
    expect(Array.from(c.kind)).toEqual([OpKind.ApiCall, OpKind.Kernel]);
    expect(Array.from(run.trace.flows.columns().fromOp)).toEqual([0]);
    expect(Array.from(run.trace.flows.columns().toOp)).toEqual([1]);
    expect(run.trace.ranges.count).toBe(1);
    expect(run.trace.meta.title).toBe('stored');
  });

  it('paces in real time: the 30 ms kernel is not there at once', async () => {
    const run = new ReplayBackend().start({
      workload: null,
      replayOf: stored(),
      timeLimitMs: 5000,
      pace: 'realtime',
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(run.trace.ops.count).toBeLessThan(2);
    await expect(run.done).resolves.toEqual({ status: 'finished' });
    expect(run.trace.ops.count).toBe(2);
  });

  it('cancels, and enforces the time limit', async () => {
    const cancelled = new ReplayBackend().start({
      workload: null,
      replayOf: stored(),
      timeLimitMs: 5000,
      pace: 'realtime',
    });
    cancelled.cancel();
    await expect(cancelled.done).resolves.toEqual({ status: 'cancelled' });
    const limited = new ReplayBackend().start({
      workload: null,
      replayOf: stored(),
      timeLimitMs: 5,
      pace: 'realtime',
    });
    await expect(limited.done).resolves.toEqual({
      status: 'failed',
      reason: 'time limit of 5 ms exceeded',
    });
  });

  it('needs a trace to replay', () => {
    expect(() =>
      new ReplayBackend().start({ workload: null, timeLimitMs: 5, pace: 'fast' }),
    ).toThrow(/replayOf/);
  });
});
