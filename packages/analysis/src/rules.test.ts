import { OpFlag, OpKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import {
  TestTraceBuilder,
  deviceToPinned,
  pageableToDevice,
  pinnedToDevice,
} from './test-trace-builder.ts';
import type { Finding, RuleId } from './types.ts';

const us = 1000;

function fired(b: TestTraceBuilder, ruleId: RuleId): Finding | undefined {
  return analyzeTrace(b.trace).findings.find((f) => f.ruleId === ruleId);
}

/**
 * The blog's depth-first order (H2D_i, K_i, D2H_i per stream) with u = 4 µs per op, laid out
 * as one copy engine runs it: D2H1 waits for K1 at the head of the queue, H2D2 waits behind it.
 */
function depthFirstOneEngine(copyEngineCount: number) {
  const b = new TestTraceBuilder(copyEngineCount);
  const host = b.host();
  const s1 = b.stream(1);
  const s2 = b.stream(2);
  const u = 4 * us;
  const api = (name: string, t: number) => ({ hostTrack: host, name, startNs: t, endNs: t + 1 });
  const copy = (track: number, kind: number, from: number, issueNs: number) =>
    b.gpu({
      track,
      kind,
      startNs: from * u,
      endNs: (from + 1) * u,
      bytes: 4 << 20,
      memKinds: kind === OpKind.CopyHtoD ? pinnedToDevice : deviceToPinned,
      api: api('cudaMemcpyAsync', issueNs),
    });
  const h2d1 = copy(s1, OpKind.CopyHtoD, 0, 0);
  b.kernel(s1, u, 2 * u, 'k', api('cudaLaunchKernel', 2));
  const d2h1 = copy(s1, OpKind.CopyDtoH, 2, 4);
  const h2d2 = copy(s2, OpKind.CopyHtoD, 3, 6);
  b.kernel(s2, 4 * u, 5 * u, 'k', api('cudaLaunchKernel', 8));
  copy(s2, OpKind.CopyDtoH, 5, 10);
  return { b, h2d1, d2h1, h2d2, u };
}

describe('rules', () => {
  it('fires pageable-copy for async pageable copies, with the pinned rate as reference', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    const api = (t: number) => ({
      hostTrack: host,
      name: 'cudaMemcpyAsync',
      startNs: t,
      endNs: t + 1,
    });
    b.gpu({
      track: s,
      kind: OpKind.CopyHtoD,
      startNs: 0,
      endNs: 100 * us,
      bytes: 1e6,
      memKinds: pinnedToDevice,
      api: api(0),
    });
    const slow = b.gpu({
      track: s,
      kind: OpKind.CopyHtoD,
      startNs: 100 * us,
      endNs: 400 * us,
      bytes: 1e6,
      memKinds: pageableToDevice,
      api: api(2),
    });
    const f = fired(b, 'pageable-copy')!;
    expect(f.opIndices).toEqual([slow]);
    // Pinned: 1e6 B in 100 µs; the pageable copy took 300 µs, 200 µs more.
    expect(f.estimatedSavingNs).toBe(200 * us);
    expect(f.message).toContain('1 async copy');
  });

  it('fires sync-copy for cudaMemcpy but not for small host-to-device copies', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    const copy = (from: number, bytes: number) =>
      b.gpu({
        track: s,
        kind: OpKind.CopyHtoD,
        startNs: from,
        endNs: from + 10 * us,
        bytes,
        memKinds: pinnedToDevice,
        flags: OpFlag.Sync,
        api: { hostTrack: host, name: 'cudaMemcpy', startNs: from - 1, endNs: from + 10 * us + 1 },
      });
    copy(10, 64 * 1024);
    expect(fired(b, 'sync-copy')).toBeUndefined();
    const big = copy(50 * us, 1 << 20);
    b.kernel(s, 70 * us, 80 * us, 'k', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 60 * us + 2,
      endNs: 60 * us + 5,
    });
    const f = fired(b, 'sync-copy')!;
    expect(f.opIndices).toEqual([big]);
    // The device idled from the big copy's end (60 µs) to the kernel (70 µs) while the host
    // was still in that cudaMemcpy when the copy ended.
    expect(f.estimatedSavingNs).toBe(10 * us);
  });

  it('fires sync-memset for memsets issued by cudaMemset', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    const op = b.gpu({
      track: s,
      kind: OpKind.Memset,
      startNs: 0,
      endNs: 10 * us,
      bytes: 1 << 20,
      api: { hostTrack: host, name: 'cudaMemset', startNs: 0, endNs: 11 * us },
    });
    expect(fired(b, 'sync-memset')!.opIndices).toEqual([op]);
  });

  it('fires device-sync for synchronizations that left the GPU idle', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    const syncs: number[] = [];
    // Three rounds: launch at t, kernel t+5..t+100 µs, sync until t+101, next launch 20 µs later.
    for (let k = 0; k < 3; k++) {
      const t = k * 125 * us;
      b.kernel(s, t + 5 * us, t + 100 * us, 'k', {
        hostTrack: host,
        name: 'cudaLaunchKernel',
        startNs: t,
        endNs: t + us,
      });
      syncs.push(
        b.apiCall({
          hostTrack: host,
          name: 'cudaDeviceSynchronize',
          startNs: t + 2 * us,
          endNs: t + 101 * us,
        }),
      );
    }
    const f = fired(b, 'device-sync')!;
    // Gaps: 100 → 130 µs and 225 → 255 µs (the last sync has no work after it): 2 × 30 µs.
    expect(f.estimatedSavingNs).toBe(60 * us);
    expect(f.opIndices.sort((x, y) => x - y)).toEqual(syncs.slice(0, 2));
  });

  it('fires gpu-gaps at the µs threshold and names the largest gap', () => {
    const b = new TestTraceBuilder();
    const s = b.stream(1);
    b.kernel(s, 0, 10 * us);
    b.kernel(s, 15 * us, 20 * us);
    expect(fired(b, 'gpu-gaps')).toBeUndefined();
    const late = b.kernel(s, 50 * us, 60 * us);
    const f = fired(b, 'gpu-gaps')!;
    // Only the 30 µs gap (20 → 50) passes the 10 µs threshold; the 5 µs one does not.
    expect(f.message).toContain(
      '1 GPU idle gap (no stream of the GPU busy) of at least 10 µs, 30 µs',
    );
    expect(f.opIndices).toEqual([late]);
    // Nothing recorded explains it (no API calls): nothing to change, so no saving is claimed.
    expect(f.estimatedSavingNs).toBe(0);
  });

  it('claims for gpu-gaps only the time the host spent in what held it, not the whole gap', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    const launch = (t: number) => ({
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: t,
      endNs: t + us,
    });
    b.kernel(s, 10 * us, 30 * us, 'k1', launch(5 * us));
    const work = b.apiCall(
      { hostTrack: host, name: 'prepare', startNs: 35 * us, endNs: 50 * us },
      0,
      OpKind.HostWork,
    );
    b.kernel(s, 60 * us, 70 * us, 'k2', launch(50 * us));
    const f = fired(b, 'gpu-gaps')!;
    // GPU idle 30 → 60 µs (30 µs). The host was late from 30 to 50 µs and busy in "prepare"
    // for 15 of those 20 µs: that is all removing it could give back.
    const gap = analyzeTrace(b.trace).gaps.device.listed[0]!;
    expect(gap).toMatchObject({
      durNs: 30 * us,
      cause: 'host-busy',
      causeOp: work,
      causeNs: 15 * us,
    });
    expect(f.estimatedSavingNs).toBe(15 * us);
  });

  it('fires low-utilization for chunks under half busy', () => {
    const b = new TestTraceBuilder();
    const s = b.stream(1);
    b.kernel(s, 0, 100 * us);
    b.kernel(s, 290 * us, 300 * us);
    const f = analyzeTrace(b.trace, undefined, { utilizationChunks: 3 }).findings.find(
      (x) => x.ruleId === 'low-utilization',
    )!;
    // Chunks of 100 µs: [0,100) 100% busy, [100,200) 0%, [200,300) 10%: two low chunks, idle
    // 100 + 90 = 190 µs.
    expect(f.message).toContain('2 of 3 time chunks');
    expect(f.message).toContain('The GPU was idle 190 µs (63.3% of the run) inside them');
    // No recorded cause for the idle time: no saving claimed.
    expect(f.estimatedSavingNs).toBe(0);
  });

  it('points low-utilization at the GPU ops on either side of its largest idle gap', () => {
    const b = new TestTraceBuilder();
    const s = b.stream(1);
    b.kernel(s, 0, 100 * us);
    const k2 = b.kernel(s, 110 * us, 112 * us, 'k2');
    const k3 = b.kernel(s, 290 * us, 300 * us, 'k3');
    const f = analyzeTrace(b.trace, undefined, { utilizationChunks: 3 }).findings.find(
      (x) => x.ruleId === 'low-utilization',
    )!;
    // Low chunks [100, 300) hold gaps 100 → 110 and 112 → 290 µs: the larger is what explains
    // them, so "show" selects k2 (it ends where the gap starts) and k3 (it ended the gap), not
    // merely the first op of the low chunks.
    expect(f.opIndices).toEqual([k2, k3]);
    expect(f.message).toContain('Largest idle gap inside them, 112 µs–290 µs');
  });

  it('claims for low-utilization what the causes of the idle time inside the chunks took', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const s = b.stream(1);
    b.kernel(s, 0, 100 * us, 'k1', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 0,
      endNs: 1,
    });
    b.range(host, 'load batch', 100 * us, 289 * us);
    b.kernel(s, 290 * us, 300 * us, 'k2', {
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: 289 * us,
      endNs: 289 * us + 500,
    });
    const f = analyzeTrace(b.trace, undefined, { utilizationChunks: 3 }).findings.find(
      (x) => x.ruleId === 'low-utilization',
    )!;
    // The device gap 100 → 290 µs lies inside the two low chunks; the host was in "load batch"
    // for 189 µs of it before it issued k2.
    expect(f.estimatedSavingNs).toBe(189 * us);
  });

  it('fires default-stream-serialization when the legacy stream holds a blocking stream', () => {
    const b = new TestTraceBuilder();
    const host = b.host();
    const legacy = b.stream(0, 'legacy-default');
    const s1 = b.stream(1, 'blocking');
    const api = (t: number) => ({
      hostTrack: host,
      name: 'cudaLaunchKernel',
      startNs: t,
      endNs: t + 1,
    });
    const a = b.kernel(s1, 0, 40 * us, 'a', api(0));
    const barrier = b.kernel(legacy, 40 * us, 140 * us, 'on-default', api(2));
    b.kernel(s1, 140 * us, 200 * us, 'b', api(4));
    const f = fired(b, 'default-stream-serialization')!;
    // The legacy stream was held 0 → 40 µs by "a" (its lead-in), s1 40 → 140 µs by the legacy
    // kernel. Without the holds s1 ends at 200 − 100 = 100 µs and the legacy stream at
    // 140 − 40 = 100 µs: the run ends 200 − 100 = 100 µs sooner. Held at all: 0 → 140 µs.
    expect(f.estimatedSavingNs).toBe(100 * us);
    expect(f.message).toContain('140 µs with at least one stream held');
    expect(f.opIndices).toEqual([barrier, a]);
  });

  it('fires copy-engine-hol-blocking for depth-first issue on one copy engine', () => {
    const { b, d2h1, h2d2, u } = depthFirstOneEngine(1);
    const f = fired(b, 'copy-engine-hol-blocking')!;
    // H2D2 was ready at once; the engine idled [u, 2u) while D2H1 waited for its kernel.
    expect(f.opIndices).toEqual([h2d2, d2h1]);
    expect(f.estimatedSavingNs).toBe(u);
  });

  it('does not fire copy-engine-hol-blocking when each direction has its own engine', () => {
    const { b } = depthFirstOneEngine(2);
    expect(fired(b, 'copy-engine-hol-blocking')).toBeUndefined();
  });

  it('fires missed-overlap for copy, kernel, copy on one stream', () => {
    const b = new TestTraceBuilder();
    const s = b.stream(1);
    b.gpu({
      track: s,
      kind: OpKind.CopyHtoD,
      startNs: 0,
      endNs: 40 * us,
      bytes: 1e6,
      memKinds: pinnedToDevice,
    });
    b.kernel(s, 40 * us, 80 * us);
    b.gpu({
      track: s,
      kind: OpKind.CopyDtoH,
      startNs: 80 * us,
      endNs: 120 * us,
      bytes: 1e6,
      memKinds: deviceToPinned,
    });
    const f = fired(b, 'missed-overlap')!;
    // Copy-only 80 µs, kernel-only 40 µs: at most min(80, 40) = 40 µs can be hidden.
    expect(f.estimatedSavingNs).toBe(40 * us);
    expect(f.message).toContain('on one stream');
  });

  it('keeps quiet about overlap in a perfectly overlapped pipeline', () => {
    const b = new TestTraceBuilder();
    const s1 = b.stream(1);
    const s2 = b.stream(2);
    b.gpu({
      track: s1,
      kind: OpKind.CopyHtoD,
      startNs: 0,
      endNs: 40 * us,
      bytes: 1e6,
      memKinds: pinnedToDevice,
    });
    b.kernel(s2, 0, 40 * us);
    const analysis = analyzeTrace(b.trace);
    expect(analysis.metrics.overlap.all).toBe(1);
    expect(analysis.findings.map((f) => f.ruleId)).not.toContain('missed-overlap');
  });

  it('returns plain JSON', () => {
    const { b } = depthFirstOneEngine(1);
    const analysis = analyzeTrace(b.trace);
    expect(JSON.parse(JSON.stringify(analysis))).toEqual(analysis);
  });
});
