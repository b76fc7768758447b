import { OpKind, RangeKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { hitTest, nearestOp } from './hit-test.ts';
import { computeLayout } from './layout.ts';

function trace(): Trace {
  const t = new Trace();
  const thread = t.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
  const name = t.strings.intern('outer');
  t.ranges.append({
    startNs: 0,
    endNs: 1000,
    track: thread,
    nameId: name,
    domainId: 0,
    depth: 0,
    kind: RangeKind.PushPop,
  });
  t.ranges.append({
    startNs: 200,
    endNs: 400,
    track: thread,
    nameId: name,
    domainId: 0,
    depth: 1,
    kind: RangeKind.PushPop,
  });
  t.addOp({ startNs: 100, endNs: 300, track: thread, kind: OpKind.ApiCall, nameId: 0 });
  t.addOp({ startNs: 500, endNs: 500, track: thread, kind: OpKind.ApiCall, nameId: 0 });
  return t;
}

describe('hitTest', () => {
  it('finds the containing op, else the nearest within the slop', () => {
    const t = trace();
    expect(nearestOp(t, 0, 150, 1)).toBe(0);
    expect(nearestOp(t, 0, 503, 5)).toBe(1);
    expect(nearestOp(t, 0, 450, 5)).toBe(-1);
  });

  it('maps a point in an NVTX row to the range at that depth', () => {
    const t = trace();
    const layout = computeLayout(t, {
      nvtxLaneHeightPx: 10,
      hostRowHeightPx: 20,
      groupHeightPx: 20,
    });
    // Rows: group (0-20), thread (20-40), NVTX (40-60: depth 0 at 40-50, depth 1 at 50-60).
    const input = {
      trace: t,
      layout,
      window: { startNs: 0, endNs: 1000 },
      widthPx: 1100,
      gutterPx: 100,
      axisHeightPx: 0,
      scrollTopPx: 0,
    };
    // x = 100 + 300 ns * 1 px/ns.
    expect(hitTest(input, 400, 45)).toEqual({ kind: 'range', range: 0, track: 0 });
    expect(hitTest(input, 400, 55)).toEqual({ kind: 'range', range: 1, track: 0 });
    expect(hitTest(input, 900, 55)).toEqual({ kind: 'row', track: 0 });
    expect(hitTest(input, 300, 30)).toEqual({ kind: 'op', op: 0, track: 0 });
    expect(hitTest(input, 300, 10)).toEqual({ kind: 'group', row: 0 });
    expect(hitTest(input, 50, 30)).toEqual({ kind: 'row', track: 0 });
  });
});
