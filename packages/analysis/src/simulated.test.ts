import type { DeviceProfile } from '@streamscope/simulator';
import { deviceProfiles, simulate } from '@streamscope/simulator';
import type { Trace } from '@streamscope/trace';
import { opKindName } from '@streamscope/trace';
import type { PresetValue } from '@streamscope/workload';
import { buildPreset, validateWorkload } from '@streamscope/workload';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { compareTraces } from './compare.ts';
import type { Analysis, RuleId } from './types.ts';

function run(spec: unknown, profile: DeviceProfile): Trace {
  const checked = validateWorkload(spec);
  if (!checked.ok) {
    throw new Error(JSON.stringify(checked));
  }
  return simulate(checked.plan, profile);
}

function preset(name: string, params: Record<string, PresetValue>, profile: DeviceProfile): Trace {
  return run(buildPreset(name, params), profile);
}

const rules = (a: Analysis): RuleId[] => a.findings.map((f) => f.ruleId);
const saving = (a: Analysis, id: RuleId): number =>
  a.findings.find((f) => f.ruleId === id)?.estimatedSavingNs ?? 0;

describe('analysis of simulated scenarios whose answer is known by construction', () => {
  it('gives overlap 1.0 when every copy runs under a kernel', () => {
    // One 5 ms kernel on s[0]; a 4 MiB copy each way on s[1], issued after the launch.
    const trace = run(
      {
        name: 'copies under a kernel',
        buffers: [
          { name: 'h', kind: 'host-pinned', size: 4 << 20 },
          { name: 'd', kind: 'device', size: 4 << 20 },
        ],
        streams: [{ name: 's', count: 2, type: 'non-blocking' }],
        threads: [
          {
            name: 'main',
            ops: [
              { op: 'kernel', name: 'long', duration: '5ms', grid: 64, block: 256, stream: 's[0]' },
              { op: 'copy', src: 'h', dst: 'd', bytes: 4 << 20, stream: 's[1]' },
              { op: 'copy', src: 'd', dst: 'h', bytes: 4 << 20, stream: 's[1]' },
              { op: 'deviceSync' },
            ],
          },
        ],
      },
      deviceProfiles.h200,
    );
    const a = analyzeTrace(trace);
    expect(a.metrics.overlap.all).toBe(1);
    expect(a.metrics.overlap.htoD).toBe(1);
    expect(a.metrics.overlap.dtoH).toBe(1);
    expect(rules(a)).not.toContain('missed-overlap');
  });

  it('gives overlap 0 and fires missed-overlap for one chunk on one stream', () => {
    const a = analyzeTrace(preset('pipeline', { chunks: 1, streams: 1 }, deviceProfiles.h200));
    expect(a.metrics.overlap.all).toBe(0);
    const f = a.findings.find((x) => x.ruleId === 'missed-overlap')!;
    expect(f.message).toContain('on one stream');
    // Copy-only time exceeds kernel time here, so the bound is the whole kernel time.
    expect(f.estimatedSavingNs).toBe(a.metrics.busyNsByEngine.compute);
  });

  it('attributes gaps to the legacy default stream barrier and estimates what removing it saves', () => {
    const legacy = preset('default-stream', { mode: 'legacy' }, deviceProfiles.h200);
    const fixed = preset('default-stream', { mode: 'non-blocking' }, deviceProfiles.h200);
    const a = analyzeTrace(legacy);
    const b = analyzeTrace(fixed);
    expect(a.gaps.stream.countByCause['legacy-default-stream']).toBeGreaterThan(0);
    expect(b.gaps.stream.countByCause['legacy-default-stream']).toBe(0);
    expect(rules(a)).toContain('default-stream-serialization');
    expect(rules(b)).not.toContain('default-stream-serialization');
    // The estimate is checked against the simulated fix: within 25% of the real difference.
    const realNs = a.metrics.makespanNs - b.metrics.makespanNs;
    expect(realNs).toBeGreaterThan(0);
    expect(Math.abs(saving(a, 'default-stream-serialization') - realNs) / realNs).toBeLessThan(
      0.25,
    );
  });

  it('fires copy-engine-hol-blocking for depth-first issue on the C1060 single copy engine', () => {
    const trace = preset('overlap-blog', { variant: 'depth-first' }, deviceProfiles.c1060);
    const a = analyzeTrace(trace);
    const f = a.findings.find((x) => x.ruleId === 'copy-engine-hol-blocking')!;
    expect(f).toBeDefined();
    // It names a blocked host-to-device copy and the device-to-host copy ahead of it.
    const kinds = new Set(f.opIndices.map((op) => opKindName(trace.ops.columns().kind[op]!)));
    expect([...kinds].sort()).toEqual(['copy-dtoh', 'copy-htod']);
    // One engine for both directions: its advice is breadth-first.
    expect(f.message).toContain('(breadth-first)');
    expect(f.message).not.toContain('(depth-first)');
    // Breadth-first issue is the blog's fix on this GPU: it saves at least what was estimated.
    const fixed = analyzeTrace(
      preset('overlap-blog', { variant: 'breadth-first' }, deviceProfiles.c1060),
    );
    expect(rules(fixed)).not.toContain('copy-engine-hol-blocking');
    expect(a.metrics.makespanNs - fixed.metrics.makespanNs).toBeGreaterThanOrEqual(
      f.estimatedSavingNs,
    );
  });

  it('fires copy-engine-hol-blocking for breadth-first issue on the C2050 device-to-host engine', () => {
    // Delayed kernel signals hold the first D2H at the head of the single D2H queue.
    const a = analyzeTrace(
      preset('overlap-blog', { variant: 'breadth-first' }, deviceProfiles.c2050),
    );
    expect(rules(a)).toContain('copy-engine-hol-blocking');
    // A queue per direction: the advice is depth-first, the blog's order for this GPU, not the
    // breadth-first issue that caused it.
    const f = a.findings.find((x) => x.ruleId === 'copy-engine-hol-blocking')!;
    expect(f.message).toContain('(depth-first)');
    expect(f.message).not.toContain('(breadth-first)');
  });

  it('stays quiet about the pause an engine takes between back-to-back copies (H100, breadth-first)', () => {
    // Each copy was ready; the engine paused 1.9 µs between copies, under the dispatch slack.
    for (const variant of ['depth-first', 'breadth-first']) {
      const a = analyzeTrace(preset('overlap-blog', { variant }, deviceProfiles.h100));
      expect(rules(a), variant).not.toContain('copy-engine-hol-blocking');
    }
  });

  it('stays quiet about head-of-line blocking with Hyper-Q (K20c), in either order', () => {
    for (const variant of ['depth-first', 'breadth-first']) {
      const a = analyzeTrace(preset('overlap-blog', { variant }, deviceProfiles.k20c));
      expect(rules(a)).not.toContain('copy-engine-hol-blocking');
    }
  });

  it('fires pageable-copy only for pageable host memory', () => {
    const pageable = analyzeTrace(
      preset('pinned-vs-pageable', { hostMemory: 'pageable' }, deviceProfiles.h200),
    );
    const pinned = analyzeTrace(
      preset('pinned-vs-pageable', { hostMemory: 'pinned' }, deviceProfiles.h200),
    );
    expect(rules(pageable)).toContain('pageable-copy');
    expect(rules(pinned)).not.toContain('pageable-copy');
    expect(pageable.copyStats.every((row) => row.pageableCount === row.count)).toBe(true);
  });

  it('blames stream synchronizes for the gaps they cause and estimates the saving', () => {
    const synced = analyzeTrace(preset('over-sync', { syncEveryChunk: true }, deviceProfiles.h200));
    const free = analyzeTrace(preset('over-sync', { syncEveryChunk: false }, deviceProfiles.h200));
    expect(synced.gaps.device.nsByCause['host-sync']).toBeGreaterThan(0);
    expect(free.gaps.device.nsByCause['host-sync']).toBe(0);
    expect(rules(free)).not.toContain('device-sync');
    const realNs = synced.metrics.makespanNs - free.metrics.makespanNs;
    expect(Math.abs(saving(synced, 'device-sync') - realNs) / realNs).toBeLessThan(0.25);
  });

  it('sees device syncs hold a stream even while another stream keeps the GPU busy', () => {
    const synced = analyzeTrace(
      preset('events-vs-device-sync', { dependency: 'device-sync' }, deviceProfiles.h200),
    );
    const evented = analyzeTrace(
      preset('events-vs-device-sync', { dependency: 'event' }, deviceProfiles.h200),
    );
    expect(rules(evented)).not.toContain('device-sync');
    const realNs = synced.metrics.makespanNs - evented.metrics.makespanNs;
    expect(Math.abs(saving(synced, 'device-sync') - realNs) / realNs).toBeLessThan(0.25);
  });

  it("attributes gaps after cudaFree to the allocator's implicit synchronization", () => {
    const malloc = analyzeTrace(
      preset('malloc-in-loop', { allocator: 'malloc' }, deviceProfiles.h200),
    );
    const pooled = analyzeTrace(
      preset('malloc-in-loop', { allocator: 'malloc-async' }, deviceProfiles.h200),
    );
    expect(malloc.gaps.device.countByCause['alloc-sync']).toBeGreaterThan(0);
    expect(pooled.gaps.device.countByCause['alloc-sync']).toBe(0);
  });

  it('compares two runs of one workload: speedup, matched ops, findings that went away', () => {
    const before = preset('default-stream', { mode: 'legacy' }, deviceProfiles.h200);
    const after = preset('default-stream', { mode: 'non-blocking' }, deviceProfiles.h200);
    const c = compareTraces(before, after);
    expect(c.speedup).toBeCloseTo(c.makespanNsA / c.makespanNsB, 12);
    expect(c.speedup).toBeGreaterThan(1);
    // Same workload, same streams: every op has its counterpart.
    expect(c.unmatchedA).toBe(0);
    expect(c.unmatchedB).toBe(0);
    expect(c.matchedOps).toBeGreaterThan(0);
    expect(c.findings.onlyA).toContain('default-stream-serialization');
    const makespan = c.metrics.find((m) => m.name === 'makespan')!;
    expect(makespan.delta).toBe(c.makespanNsB - c.makespanNsA);
  });
});
