import { RangeKind, Trace, rangeLaneSummaries } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { computeLayout } from './layout.ts';
import { rangeLanesOf, traceRangeLanes } from './range-lanes.ts';

/**
 * A kineto-like host thread: CPU ops early, a user annotation later with a CPU op inside it;
 * `upToNs` keeps only the ranges that start before it (a tiled view's window of the ranges).
 */
function hostTrace(upToNs = Infinity): Trace {
  const trace = new Trace();
  trace.addProcess({ pid: 1, name: 'python3' });
  const thread = trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 11 });
  trace.addTrack({ kind: 'host-thread', name: 'loader', pid: 1, tid: 12 });
  const cpuOp = trace.strings.intern('cpu_op');
  const annotation = trace.strings.intern('user_annotation');
  const name = trace.strings.intern('aten::mm');
  const ranges: [number, number, number, number][] = [
    [0, 10, cpuOp, 0],
    [100, 200, annotation, 0],
    [150, 160, cpuOp, 1],
  ];
  for (const [startNs, endNs, domainId, depth] of ranges) {
    if (startNs < upToNs) {
      trace.ranges.append({
        startNs,
        endNs,
        track: thread,
        nameId: name,
        domainId,
        depth,
        kind: RangeKind.PushPop,
      });
    }
  }
  return trace;
}

const rowsOf = (trace: Trace, lanes = traceRangeLanes(trace)) =>
  computeLayout(trace, { rangeLanes: lanes }).rows.map((r) => [r.kind, r.label, r.heightPx]);

describe('range lanes', () => {
  it('summarises each track with ranges: domains in first-range order, depth, count', () => {
    expect(rangeLaneSummaries(hostTrace())).toEqual([
      { track: 0, depth: 2, count: 3, domains: ['cpu_op', 'user_annotation'] },
    ]);
  });

  it("labels a window's rows from the whole trace's lanes exactly as the whole trace's", () => {
    const whole = hostTrace();
    const lanes = rangeLanesOf(whole.tracks.length, rangeLaneSummaries(whole));
    const expected = computeLayout(whole).rows.map((r) => [r.kind, r.label, r.heightPx]);
    expect(expected).toContainEqual(['nvtx', 'CPU ops + user annotations', 28]);
    // A window with the first range only, and one with none: the same rows, labels and heights.
    expect(rowsOf(hostTrace(50), lanes)).toEqual(expected);
    expect(rowsOf(hostTrace(-1), lanes)).toEqual(expected);
    // From the window's own ranges the row would read "CPU ops", one lane high; or be missing.
    expect(rowsOf(hostTrace(50))).toContainEqual(['nvtx', 'CPU ops', 14]);
    expect(rowsOf(hostTrace(-1)).some(([kind]) => kind === 'nvtx')).toBe(false);
  });

  it("labels a Chrome trace's rows by its own categories, never as NVTX", () => {
    const summaries = [
      { track: 0, depth: 1, count: 1, domains: [''] },
      { track: 1, depth: 1, count: 2, domains: ['Op', 'cpu_op'] },
    ];
    expect(rangeLanesOf(2, summaries, 'chrome-trace').labels).toEqual(['Ranges', 'Op + CPU ops']);
    // An nsys export's domains are NVTX domains.
    expect(rangeLanesOf(2, summaries, 'nsys-sqlite').labels).toEqual(['NVTX', 'NVTX + CPU ops']);
  });

  it('leaves out tracks a summary names beyond the trace', () => {
    const lanes = rangeLanesOf(1, [{ track: 5, depth: 1, count: 1, domains: [] }]);
    expect([...lanes.depths]).toEqual([0]);
    expect(lanes.labels).toEqual(['NVTX']);
  });
});
