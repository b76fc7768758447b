import { OpKind, RangeKind, StreamType, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { fakeCanvas, manualClock } from './fake-canvas.ts';
import { createTimelineView } from './timeline-view.ts';
import { queueBarHeightPx, TrackLanes } from './track-lanes.ts';

function streamWithHostRange(): { trace: Trace; stream: number; forward: number } {
  const trace = new Trace();
  trace.addDevice({ deviceId: 0, name: '' });
  const host = trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
  const stream = trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: StreamType.NonBlocking,
    priority: 0,
  });
  trace.addOp({ startNs: 10_000, endNs: 60_000, track: stream, kind: OpKind.Kernel, nameId: 0 });
  const forward = trace.ranges.append({
    startNs: 0,
    endNs: 50_000,
    track: host,
    nameId: trace.strings.intern('forward'),
    domainId: 0,
    depth: 0,
    kind: RangeKind.PushPop,
  });
  return { trace, stream, forward };
}

const queue = (track: number) => ({
  track,
  // Depth 1 from 5 µs, 3 from 8 µs, 0 from 40 µs.
  timesNs: Float64Array.from([5_000, 8_000, 40_000]),
  depth: Int32Array.from([1, 3, 0]),
});

describe('the launch-range and queue-depth rows', () => {
  it('holds the depth as a step function and the launching range per time', () => {
    const lanes = new TrackLanes();
    lanes.setQueueDepth([queue(1)], 1024);
    expect(lanes.queueDepthAt(1, 4_999)).toBe(0);
    expect(lanes.queueDepthAt(1, 5_000)).toBe(1);
    expect(lanes.queueDepthAt(1, 39_999)).toBe(3);
    expect(lanes.queueDepthAt(1, 70_000)).toBe(0);
    expect(lanes.queueDepthAt(2, 6_000)).toBe(0);
    lanes.setLaunchSegments([
      {
        track: 1,
        startNs: Float64Array.from([10, 100]),
        endNs: Float64Array.from([90, 200]),
        range: Uint32Array.from([4, 5]),
      },
    ]);
    expect(lanes.launchRangeAt(1, 50)).toBe(4);
    expect(lanes.launchRangeAt(1, 95)).toBe(-1);
    expect(lanes.launchRangeAt(1, 200)).toBe(5);
  });

  it('draws depth on a log scale that puts the capacity at the top', () => {
    // A 30 px track has 26 px inside; log2(1 + 1024) ≈ 10.0.
    expect(queueBarHeightPx(1024, 1024, 30)).toBeCloseTo(26, 6);
    expect(queueBarHeightPx(1, 1024, 30)).toBeCloseTo(26 / Math.log2(1025), 6);
    expect(queueBarHeightPx(0, 1024, 30)).toBe(0);
    expect(queueBarHeightPx(3, 1024, 30)).toBeGreaterThan(2 * queueBarHeightPx(1, 1024, 30) - 1e-9);
  });

  it('adds the rows under their stream only when shown, and reads them under the pointer', () => {
    const { trace, stream, forward } = streamWithHostRange();
    const { canvas } = fakeCanvas(1000, 400);
    const view = createTimelineView(canvas, { clock: manualClock().clock, devicePixelRatio: 1 });
    view.setTrace(trace);
    view.setViewport({ startNs: 0, endNs: 80_000 });
    view.setTrackLaneData(
      [
        {
          track: stream,
          startNs: Float64Array.from([10_000]),
          endNs: Float64Array.from([60_000]),
          range: Uint32Array.from([forward]),
        },
      ],
      [queue(stream)],
      1024,
    );
    const kinds = () => view.getLayout().rows.map((r) => r.kind);
    expect(kinds()).not.toContain('queue');
    expect(kinds()).not.toContain('launch');
    view.setTrackLanesShown(true, true);
    const rows = view.getLayout().rows;
    const at = rows.findIndex((r) => r.kind === 'track' && r.track === stream);
    expect(rows.slice(at + 1, at + 3).map((r) => [r.kind, r.label, r.track])).toEqual([
      ['launch', 'Launched from', stream],
      ['queue', 'Queue depth (log)', stream],
    ]);
    const queueRow = rows[at + 2]!;
    const y = view.rowTopPx(queueRow) + queueRow.heightPx / 2;
    // x = 200 + 20 µs × 800 px / 80 µs = 400: depth 3 there.
    expect(view.trackLaneAt(400, y)).toEqual({
      kind: 'queue',
      track: stream,
      depth: 3,
      timeNs: 20_000,
    });
    expect(view.trackLaneAt(100, y)).toBeUndefined();
    // The lanes draw no ops: the stream's kernel is not hit through them.
    expect(view.hitTest(400, y)).toEqual({ kind: 'row', track: stream });
    const launchRow = rows[at + 1]!;
    const yLaunch = view.rowTopPx(launchRow) + launchRow.heightPx / 2;
    expect(view.trackLaneAt(400, yLaunch)).toEqual({
      kind: 'launch',
      track: stream,
      range: forward,
    });

    const svg = view.exportSvg();
    // The launching range's name over the GPU, the capacity line's label, the depth as bars.
    expect(svg).toMatch(/>forward<\/text>/);
    expect(svg).toContain('>capacity 1024<');
    expect(svg).toContain('fill="#0072b2" fill-opacity="0.588"');
    view.setTrackLanesShown(false, false);
    expect(kinds()).not.toContain('queue');
  });

  it('names the queue-depth area and its log scale in the export legend only while shown', () => {
    const { trace, stream } = streamWithHostRange();
    const { canvas } = fakeCanvas(1000, 400);
    const view = createTimelineView(canvas, { clock: manualClock().clock, devicePixelRatio: 1 });
    view.setTrace(trace);
    view.setViewport({ startNs: 0, endNs: 80_000 });
    view.setTrackLaneData([], [queue(stream)], 1024);
    const legendLabel = />Launch queue depth \(log scale\)<\/text>/;
    expect(view.exportSvg()).not.toMatch(legendLabel);
    view.setTrackLanesShown(false, true);
    expect(view.exportSvg()).toMatch(legendLabel);
    view.setTrackLanesShown(false, false);
    expect(view.exportSvg()).not.toMatch(legendLabel);
  });
});
