import { FlowKind, OpKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { fakeCanvas, manualClock } from './fake-canvas.ts';
import { syntheticTrace } from './synthetic-trace.ts';
import { createTimelineView } from './timeline-view.ts';

function smallTrace(): Trace {
  const trace = new Trace();
  trace.addDevice({ deviceId: 0, name: 'Test GPU' });
  const host = trace.addTrack({ kind: 'host-thread', name: '', pid: 1, tid: 10 });
  const s1 = trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 13,
    streamType: 'non-blocking',
    priority: 0,
  });
  const s2 = trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 14,
    streamType: 'non-blocking',
    priority: 0,
  });
  const k = trace.strings.intern('my_kernel');
  const api = trace.addOp({
    startNs: 0,
    endNs: 2_000,
    track: host,
    kind: OpKind.ApiCall,
    nameId: trace.strings.intern('cudaLaunchKernel'),
  });
  const k1 = trace.addOp({
    startNs: 5_000,
    endNs: 45_000,
    track: s1,
    kind: OpKind.Kernel,
    nameId: k,
  });
  const rec = trace.addOp({
    startNs: 45_000,
    endNs: 45_000,
    track: s1,
    kind: OpKind.EventRecord,
    nameId: 0,
  });
  const wait = trace.addOp({
    startNs: 46_000,
    endNs: 46_000,
    track: s2,
    kind: OpKind.StreamWait,
    nameId: 0,
  });
  trace.addOp({
    startNs: 60_000,
    endNs: 100_000,
    track: s2,
    kind: OpKind.CopyDtoH,
    nameId: trace.strings.intern('D2H'),
  });
  trace.flows.append(api, k1, FlowKind.ApiToGpu);
  trace.flows.append(rec, wait, FlowKind.EventRecordToWait);
  return trace;
}

describe('createTimelineView', () => {
  it('draws through one scheduled frame and reports what it drew', () => {
    const { canvas, calls } = fakeCanvas();
    const { clock, tick } = manualClock();
    const view = createTimelineView(canvas, { clock, devicePixelRatio: 2 });
    expect(canvas.width).toBe(2000);
    view.setTrace(smallTrace());
    view.setViewport({ startNs: 0, endNs: 100_000 });
    view.requestRedraw();
    expect(view.isIdle()).toBe(false);
    let frames = 0;
    view.onFrame(() => frames++);
    expect(tick()).toBe(1);
    expect(frames).toBe(1);
    expect(view.isIdle()).toBe(true);
    const stats = view.stats();
    expect(stats.drawnOps).toBe(5);
    expect(stats.rects).toBe(5);
    expect(stats.lod).toBe(128); // 100 µs over 800 px = 125 ns/px → 128 ns buckets
    expect(calls.fillText).toContain('my_kernel');
    expect(calls.fillText).toContain('Stream 13');
    expect(calls.fillText).toContain('GPU 0 · Test GPU');
  });

  it('hit-tests ops, rows and the gutter in CSS px', () => {
    const { canvas } = fakeCanvas();
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    view.setTrace(smallTrace());
    view.setViewport({ startNs: 0, endNs: 100_000 });
    const layout = view.getLayout();
    const row = layout.rows[layout.rowOfTrack[1]!]!;
    const yPx = 28 + row.topPx + row.heightPx / 2;
    // x = 200 + 25 µs * (800 px / 100 µs) = 400: inside the kernel.
    expect(view.hitTest(400, yPx)).toEqual({ kind: 'op', op: 1, track: 1 });
    expect(view.hitTest(190, yPx)).toEqual({ kind: 'row', track: 1 });
    expect(view.hitTest(900, yPx)).toEqual({ kind: 'row', track: 1 });
    expect(view.rowAt(yPx)).toBe(row);
    expect(view.hitTest(400, 5)).toBeUndefined();
  });

  it('keeps the viewport in step with zoom and pan and tells listeners', () => {
    const { canvas } = fakeCanvas();
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    view.setTrace(smallTrace());
    const seen: number[] = [];
    view.onViewportChange((v) => seen.push(v.endNs - v.startNs));
    view.setViewport({ startNs: 0, endNs: 100_000 });
    view.zoomAt(view.xAtTime(50_000), 2);
    expect(view.getViewport()).toEqual({ startNs: 25_000, endNs: 75_000 });
    view.panByPx(80); // 80 px at 62.5 ns/px = 5 µs
    expect(view.getViewport().startNs).toBeCloseTo(30_000, 6);
    expect(seen).toEqual([100_000, 50_000, 50_000]);
  });

  it('draws the selection flows as arrows and exports the same frame as SVG', () => {
    const { canvas } = fakeCanvas();
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    view.setTrace(smallTrace());
    view.setViewport({ startNs: 0, endNs: 100_000 });
    view.setSelection(2);
    expect(view.selectionFlows()).toEqual([1]);
    view.setSearchMatches([1, 4], 4);
    view.setAreaSelection({ startNs: 10_000, endNs: 20_000, tracks: [1] });
    const svg = view.exportSvg();
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('my_kernel');
    // The event flow arrow (vermillion) and the area fill are there.
    expect(svg).toContain('stroke="#d55e00"');
    expect(svg).toContain('fill="#0072b2" fill-opacity="0.157"');
  });

  it('moves pinned tracks under the axis and drops hidden ones', () => {
    const { canvas } = fakeCanvas();
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    view.setTrace(smallTrace());
    view.setPinnedTracks([2]);
    view.setHiddenTracks([0]);
    const layout = view.getLayout();
    expect(layout.pinnedRowCount).toBe(1);
    expect(layout.rows[0]!.track).toBe(2);
    expect(layout.rowOfTrack[0]).toBe(-1);
    expect(view.rowAt(28 + 2)?.track).toBe(2);
  });

  it('picks up a growing live trace on invalidate', () => {
    const { canvas } = fakeCanvas();
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    const trace = smallTrace();
    view.setTrace(trace);
    view.setViewport({ startNs: 0, endNs: 200_000 });
    expect(view.renderNow().drawnOps).toBe(5);
    trace.addOp({ startNs: 120_000, endNs: 150_000, track: 1, kind: OpKind.Kernel, nameId: 0 });
    view.invalidate();
    expect(view.renderNow().drawnOps).toBe(6);
  });

  it('costs pixels, not ops: a 200k-op trace at full view draws a bounded number of rects', () => {
    const { canvas } = fakeCanvas(1200, 800);
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    view.setTrace(syntheticTrace({ opCount: 200_000 }));
    const stats = view.renderNow();
    expect(stats.drawnOps).toBeGreaterThan(190_000);
    // 14 op rows and 2 NVTX rows of at most ~2 rects per px over 1000 px.
    expect(stats.rects).toBeLessThan(16 * 2 * 1000);
    expect(stats.lod).toBeGreaterThan(1);
  });
});
