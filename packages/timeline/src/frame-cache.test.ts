import fc from 'fast-check';
import { OpKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { FrameCache, bufferedBounds } from './frame-cache.ts';
import { GapCause, GapIndex } from './gaps.ts';
import { computeLayout } from './layout.ts';
import { syntheticTrace } from './synthetic-trace.ts';

function oneStream(ops: readonly (readonly [number, number])[]): Trace {
  const trace = new Trace();
  trace.addDevice({ deviceId: 0, name: '' });
  trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 1,
    streamType: 'blocking',
    priority: 0,
  });
  for (const [s, e] of ops) {
    trace.addOp({ startNs: s, endNs: e, track: 0, kind: OpKind.Kernel, nameId: 0 });
  }
  return trace;
}

describe('bufferedBounds', () => {
  it('pads the window by its span on each side and quantizes to 512 buckets', () => {
    // Window [10 000, 20 000], bucket 16 ns → quantum 8192 ns.
    expect(bufferedBounds({ startNs: 10_000, endNs: 20_000 }, 16)).toEqual({
      startNs: 0,
      endNs: 32_768,
    });
  });
});

describe('FrameCache', () => {
  it('reuses its buffers while the window stays inside the bounds at the same level', () => {
    const trace = syntheticTrace({ opCount: 5_000 });
    const layout = computeLayout(trace);
    const cache = new FrameCache();
    expect(cache.update(trace, layout, { startNs: 1e5, endNs: 2e5 }, 125, undefined)).toBe(true);
    expect(cache.update(trace, layout, { startNs: 1.1e5, endNs: 2.1e5 }, 125, undefined)).toBe(
      false,
    );
    // A new level of detail, or a grown trace, rebuilds.
    expect(cache.update(trace, layout, { startNs: 1.1e5, endNs: 2.1e5 }, 300, undefined)).toBe(
      true,
    );
    trace.addOp({ startNs: 1.5e5, endNs: 1.6e5, track: 3, kind: OpKind.Kernel, nameId: 0 });
    expect(cache.update(trace, layout, { startNs: 1.1e5, endNs: 2.1e5 }, 300, undefined)).toBe(
      true,
    );
  });

  it('culls to a superset of the visible ops: every op reaching the window is in a rectangle', () => {
    const op = fc
      .tuple(fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 200_000 }))
      .map(([s, d]) => [s, s + d] as const);
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 200 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        fc.integer({ min: 10, max: 1_000_000 }),
        fc.integer({ min: 100, max: 2000 }),
        (ops, startNs, spanNs, widthPx) => {
          const trace = oneStream(ops);
          const layout = computeLayout(trace);
          const r = layout.rowOfTrack[0]!;
          const cache = new FrameCache();
          const window = { startNs, endNs: startNs + spanNs };
          cache.update(trace, layout, window, spanNs / widthPx, undefined);
          const b = cache.intervals;
          const first = b.rowFirst[r]!;
          const end = first + b.rowCount[r]!;
          const cols = trace.ops.columns();
          for (let i = 0; i < cols.count; i++) {
            const s = cols.startNs[i]!;
            const e = cols.endNs[i]!;
            if (e < window.startNs || s > window.endNs) {
              continue;
            }
            const sRel = s - cache.baseNs;
            const eRel = e - cache.baseNs;
            const tol = Math.max(Math.abs(sRel), Math.abs(eRel)) * 2 ** -22 + 1e-6;
            let covered = false;
            for (let k = first; k < end && !covered; k++) {
              covered = b.starts[k]! <= sRel + tol && b.ends[k]! >= eRel - tol;
            }
            expect(covered).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('shades idle stretches between ops, or the causes analysis gave', () => {
    const trace = oneStream([
      [0, 1000],
      [5000, 6000],
      [6000, 7000],
      [20_000, 21_000],
    ]);
    const layout = computeLayout(trace);
    const r = layout.rowOfTrack[0]!;
    const cache = new FrameCache();
    cache.update(trace, layout, { startNs: 0, endNs: 21_000 }, 10, undefined);
    const idle = Array.from({ length: cache.gaps.rowCount[r]! }, (_, k) => {
      const i = cache.gaps.rowFirst[r]! + k;
      return [cache.gaps.starts[i]! + cache.baseNs, cache.gaps.ends[i]! + cache.baseNs];
    });
    expect(idle).toEqual([
      [1000, 5000],
      [7000, 20_000],
    ]);
    const gaps = new GapIndex({
      count: 1,
      startNs: Float64Array.of(7000),
      endNs: Float64Array.of(20_000),
      track: Uint16Array.of(0),
      cause: Uint8Array.of(GapCause.EventWait),
    });
    cache.update(trace, layout, { startNs: 0, endNs: 21_000 }, 10, gaps);
    expect(cache.gaps.rowCount[r]).toBe(1);
    expect(cache.gaps.items[cache.gaps.rowFirst[r]!]).toBe(0);
  });
});
