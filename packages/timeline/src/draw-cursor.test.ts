import { OpKind, RangeKind, StreamType, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { fakeCanvas, manualClock } from './fake-canvas.ts';
import { createTimelineView } from './timeline-view.ts';

function oneKernel(): Trace {
  const trace = new Trace();
  trace.addDevice({ deviceId: 0, name: '' });
  const s = trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: StreamType.NonBlocking,
    priority: 0,
  });
  trace.addOp({ startNs: 10_000, endNs: 30_000, track: s, kind: OpKind.Kernel, nameId: 0 });
  return trace;
}

describe('the time cursor and the marked range', () => {
  it('labels the time under the pointer on the axis, but never in an export', () => {
    const { canvas, calls } = fakeCanvas();
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    view.setTrace(oneKernel());
    view.setViewport({ startNs: 0, endNs: 100_000 });
    view.setCursor(view.timeAtX(400));
    view.renderNow();
    // x = 400 is 200 px into 800 px of 100 µs: 25 µs.
    expect(calls.fillText).toContain('25 µs');
    expect(view.exportSvg()).not.toContain('>25 µs<');
    calls.fillText.length = 0;
    view.setCursor(undefined);
    view.renderNow();
    expect(calls.fillText).not.toContain('25 µs');
  });

  it('shows a marked range with its duration, in the view and in the SVG', () => {
    const { canvas, calls } = fakeCanvas();
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    view.setTrace(oneKernel());
    view.setViewport({ startNs: 0, endNs: 100_000 });
    view.setMark({ startNs: 10_000, endNs: 30_000 });
    view.renderNow();
    expect(calls.fillText).toContain('20 µs');
    expect(view.exportSvg()).toContain('>20 µs<');
  });
});

describe('a selected range', () => {
  it('is outlined in its lane', () => {
    const trace = oneKernel();
    const host = trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
    trace.ranges.append({
      startNs: 5_000,
      endNs: 40_000,
      track: host,
      nameId: trace.strings.intern('forward'),
      domainId: 0,
      depth: 0,
      kind: RangeKind.PushPop,
    });
    const { canvas, calls } = fakeCanvas();
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    view.setTrace(trace);
    view.setViewport({ startNs: 0, endNs: 100_000 });
    view.renderNow();
    const before = calls.stroke;
    view.setSelectedRange(0);
    view.renderNow();
    expect(calls.stroke - before).toBeGreaterThan(0);
    view.setSelectedRange(undefined);
    const without = calls.stroke;
    view.renderNow();
    expect(calls.stroke - without).toBe(before);
  });
});
