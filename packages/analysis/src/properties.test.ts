import { OpKind } from '@streamscope/trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeTrace } from './analyze.ts';
import { intersectionNs, measure, subtractIntervals, unionInPlace } from './intervals.ts';
import { TestTraceBuilder, pinnedToDevice } from './test-trace-builder.ts';

const intervalArb = fc
  .tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 200 }))
  .map(([start, len]) => [start, start + len] as const);

/** Brute force: how many integer ns in [0, 1200) some interval covers. */
function coveredNs(intervals: readonly (readonly [number, number])[]): boolean[] {
  const covered: boolean[] = Array.from({ length: 1200 }, () => false);
  for (const [s, e] of intervals) {
    for (let t = s; t < e; t++) {
      covered[t] = true;
    }
  }
  return covered;
}

function unionOf(intervals: readonly (readonly [number, number])[]) {
  return unionInPlace(
    Float64Array.from(intervals, (i) => i[0]),
    Float64Array.from(intervals, (i) => i[1]),
  );
}

describe('interval sweeps', () => {
  it('measure the union exactly, whatever the order and overlap', () => {
    fc.assert(
      fc.property(fc.array(intervalArb, { maxLength: 40 }), (intervals) => {
        const union = unionOf(intervals);
        expect(measure(union)).toBe(coveredNs(intervals).filter(Boolean).length);
        // Disjoint and sorted, with no zero-length pieces.
        for (let k = 0; k < union.count; k++) {
          expect(union.ends[k]!).toBeGreaterThan(union.starts[k]!);
          if (k > 0) {
            expect(union.starts[k]!).toBeGreaterThan(union.ends[k - 1]!);
          }
        }
      }),
    );
  });

  it('measure intersections exactly', () => {
    fc.assert(
      fc.property(
        fc.array(intervalArb, { maxLength: 30 }),
        fc.array(intervalArb, { maxLength: 30 }),
        (a, b) => {
          const ca = coveredNs(a);
          const cb = coveredNs(b);
          const both = ca.filter((v, t) => v && cb[t]).length;
          expect(intersectionNs(unionOf(a), unionOf(b))).toBe(both);
        },
      ),
    );
  });

  it('subtract exactly: a − b covers what a covers and b does not, as disjoint pieces', () => {
    fc.assert(
      fc.property(
        fc.array(intervalArb, { maxLength: 30 }),
        fc.array(intervalArb, { maxLength: 30 }),
        (a, b) => {
          const ca = coveredNs(a);
          const cb = coveredNs(b);
          const onlyA = ca.filter((v, t) => v && !cb[t]).length;
          const diff = subtractIntervals(unionOf(a), unionOf(b));
          expect(measure(diff)).toBe(onlyA);
          expect(intersectionNs(diff, unionOf(b))).toBe(0);
          for (let k = 1; k < diff.count; k++) {
            expect(diff.starts[k]!).toBeGreaterThanOrEqual(diff.ends[k - 1]!);
          }
        },
      ),
    );
  });
});

describe('gaps of random traces', () => {
  it('partition each stream and the device: busy + gaps = span, causes sum to the total', () => {
    const opArb = fc.record({
      stream: fc.integer({ min: 0, max: 2 }),
      copy: fc.boolean(),
      gapNs: fc.integer({ min: 0, max: 500 }),
      durNs: fc.integer({ min: 1, max: 300 }),
      issueLeadNs: fc.integer({ min: -200, max: 200 }),
    });
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 30 }), (ops) => {
        const b = new TestTraceBuilder();
        const host = b.host();
        const streams = [b.stream(1), b.stream(2, 'blocking'), b.stream(0, 'legacy-default')];
        const cursor = [0, 0, 0];
        for (const op of ops) {
          const startNs = cursor[op.stream]! + op.gapNs;
          const endNs = startNs + op.durNs;
          cursor[op.stream] = endNs;
          const apiStartNs = Math.max(0, startNs - 50 + op.issueLeadNs);
          b.gpu({
            track: streams[op.stream]!,
            kind: op.copy ? OpKind.CopyHtoD : OpKind.Kernel,
            startNs,
            endNs,
            bytes: op.copy ? 1000 : 0,
            memKinds: op.copy ? pinnedToDevice : 0,
            api: { hostTrack: host, name: 'call', startNs: apiStartNs, endNs: apiStartNs + 5 },
          });
        }
        const a = analyzeTrace(b.trace, undefined, { maxListedGaps: 1000 });
        const m = a.metrics;
        expect(m.deviceBusyNs + a.gaps.device.totalNs).toBe(m.makespanNs);
        const sumByCause = Object.values(a.gaps.stream.nsByCause).reduce((x, y) => x + y, 0);
        expect(sumByCause).toBe(a.gaps.stream.totalNs);
        for (const s of m.streams) {
          const gaps = a.gaps.stream.listed.filter((g) => g.track === s.track && g.beforeOp >= 0);
          const gapNs = gaps.reduce((sum, g) => sum + g.durNs, 0);
          const own = ops.filter((op) => streams[op.stream] === s.track);
          if (own.length > 0) {
            // Ops on one stream follow each other here, so its span is busy time plus gaps.
            const first = own[0]!.gapNs;
            const last = own.reduce((t, op) => t + op.gapNs + op.durNs, 0);
            expect(s.busyNs + gapNs).toBe(last - first);
          }
        }
        for (const f of a.findings) {
          expect(f.estimatedSavingNs).toBeLessThanOrEqual(m.makespanNs);
        }
        // A cause is never charged more than its gap, nor the idle-gap finding more than they add up to.
        for (const g of [...a.gaps.stream.listed, ...a.gaps.device.listed]) {
          expect(g.causeNs).toBeGreaterThanOrEqual(0);
          expect(g.causeNs).toBeLessThanOrEqual(g.durNs);
        }
        const idle = a.findings.find((f) => f.ruleId === 'gpu-gaps');
        expect(idle?.estimatedSavingNs ?? 0).toBeLessThanOrEqual(a.gaps.device.totalNs);
      }),
      { numRuns: 200 },
    );
  });
});
