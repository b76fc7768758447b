import { OpKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { fakeCanvas, manualClock } from './fake-canvas.ts';
import { hitTest } from './hit-test.ts';
import { computeLayout, syncLaneLabel } from './layout.ts';
import { RowOps, SyncLaneScan, isHostWaitKind, keepRowOps, syncLaneTracks } from './sync-lane.ts';
import { stream, syncTrace } from './sync-test-trace.ts';
import { createTimelineView } from './timeline-view.ts';

describe('host waits', () => {
  it('are the synchronize records; a stream wait is the stream waiting, in its own row', () => {
    expect([OpKind.StreamSync, OpKind.EventSync, OpKind.DeviceSync].map(isHostWaitKind)).toEqual([
      true,
      true,
      true,
    ]);
    expect([OpKind.StreamWait, OpKind.Kernel, OpKind.ApiCall].map(isHostWaitKind)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('get a lane only on tracks where they would share the row with other ops', () => {
    expect([...syncLaneTracks(syncTrace())]).toEqual([0]);
  });

  it('are split from a row’s ops in order, in place', () => {
    const trace = syncTrace();
    const kinds = trace.ops.columns().kind;
    expect([...keepRowOps(Uint32Array.of(0, 1, 2, 3), kinds, RowOps.Work)]).toEqual([0, 2, 3]);
    expect([...keepRowOps(Uint32Array.of(0, 1, 2, 3), kinds, RowOps.HostWaits)]).toEqual([1]);
    expect([...keepRowOps(Uint32Array.of(0, 1, 2, 3), kinds, RowOps.All)]).toEqual([0, 1, 2, 3]);
  });

  it('are scanned as a live trace grows, reporting when a lane opens', () => {
    const trace = new Trace();
    const s = stream(trace, 7);
    const scan = new SyncLaneScan();
    trace.addOp({ startNs: 0, endNs: 10, track: s, kind: OpKind.StreamSync, nameId: 0 });
    expect(scan.update(trace)).toBe(false); // waits alone: no lane
    expect(scan.update(trace)).toBe(false);
    trace.addOp({ startNs: 5, endNs: 8, track: s, kind: OpKind.Kernel, nameId: 0 });
    expect(scan.update(trace)).toBe(true);
    expect([...scan.tracks]).toEqual([s]);
    trace.addOp({ startNs: 20, endNs: 30, track: s, kind: OpKind.StreamSync, nameId: 0 });
    expect(scan.update(trace)).toBe(false);
    // Another trace starts over (and the lanes it drops count as a change).
    expect(scan.update(new Trace())).toBe(true);
    expect(scan.tracks.size).toBe(0);
  });
});

describe('the sync lane in the layout', () => {
  it('sits right under its stream’s row, thin and labelled, and only there', () => {
    const layout = computeLayout(syncTrace(), { syncLaneHeightPx: 12 });
    expect(layout.rows.map((r) => `${r.kind}:${r.label}`)).toEqual([
      'group:GPU 0 · Test GPU',
      'track:Stream 7',
      `sync:${syncLaneLabel}`,
      'track:Context 1 sync',
    ]);
    const lane = layout.rows[layout.syncRowOfTrack[0]!]!;
    const row = layout.rows[layout.rowOfTrack[0]!]!;
    expect(lane.track).toBe(0);
    expect(lane.heightPx).toBe(12);
    expect(lane.topPx).toBe(row.topPx + row.heightPx);
    expect(lane.indent).toBe(row.indent + 1);
    expect(layout.syncRowOfTrack[1]).toBe(-1);
  });

  it('moves with its stream when pinned and goes when the stream is hidden (the Streams panel)', () => {
    const pinned = computeLayout(syncTrace(), { pinnedTracks: [0] });
    expect(pinned.pinnedRowCount).toBe(2);
    expect(pinned.rows.slice(0, 2).map((r) => [r.kind, r.pinned])).toEqual([
      ['track', true],
      ['sync', true],
    ]);
    const hidden = computeLayout(syncTrace(), { hiddenTracks: new Set([0]) });
    expect(hidden.syncRowOfTrack[0]).toBe(-1);
    expect(hidden.rows.some((r) => r.kind === 'sync')).toBe(false);
  });
});

describe('hit testing with a sync lane', () => {
  it('finds the kernel in the stream row and the synchronize in the lane at the same time', () => {
    const trace = syncTrace();
    const layout = computeLayout(trace);
    const input = {
      trace,
      layout,
      window: { startNs: 0, endNs: 100_000 },
      widthPx: 1000,
      gutterPx: 200,
      axisHeightPx: 28,
      scrollTopPx: 0,
    };
    const row = layout.rows[layout.rowOfTrack[0]!]!;
    const lane = layout.rows[layout.syncRowOfTrack[0]!]!;
    // 50 µs: x = 200 + 50 µs * 8 px/µs, inside both the kernel and the synchronize.
    const xPx = 600;
    expect(hitTest(input, xPx, 28 + row.topPx + row.heightPx / 2)).toEqual({
      kind: 'op',
      op: 0,
      track: 0,
    });
    expect(hitTest(input, xPx, 28 + lane.topPx + lane.heightPx / 2)).toEqual({
      kind: 'op',
      op: 1,
      track: 0,
    });
    // 61 µs: past the kernel, the stream row has nothing (the wait is in the lane); 65 µs: the
    // stream wait is the stream's, in its row.
    expect(hitTest(input, 688, 28 + row.topPx + 12)).toEqual({ kind: 'row', track: 0 });
    expect(hitTest(input, 720, 28 + row.topPx + 12)).toEqual({ kind: 'op', op: 2, track: 0 });
    expect(hitTest(input, 720, 28 + lane.topPx + 7)).toEqual({ kind: 'row', track: 0 });
    // The sync-only track keeps its event synchronize in its own row.
    const ctx = layout.rows[layout.rowOfTrack[1]!]!;
    expect(hitTest(input, 560, 28 + ctx.topPx + 12)).toEqual({ kind: 'op', op: 4, track: 1 });
  });
});

describe('a live view', () => {
  it('opens the lane when a stream’s first host wait arrives beside its work', () => {
    const { canvas } = fakeCanvas();
    const view = createTimelineView(canvas, { clock: manualClock().clock });
    const trace = new Trace();
    const s = stream(trace, 7);
    trace.addOp({ startNs: 10_000, endNs: 60_000, track: s, kind: OpKind.Kernel, nameId: 0 });
    view.setTrace(trace);
    view.setViewport({ startNs: 0, endNs: 100_000 });
    expect(view.renderNow().drawnOps).toBe(1);
    expect(view.getLayout().syncRowOfTrack[s]).toBe(-1);
    trace.addOp({ startNs: 30_000, endNs: 62_000, track: s, kind: OpKind.StreamSync, nameId: 0 });
    view.invalidate();
    expect(view.renderNow().drawnOps).toBe(2);
    const layout = view.getLayout();
    const lane = layout.rows[layout.syncRowOfTrack[s]!]!;
    expect(lane.kind).toBe('sync');
    expect(view.rowTopPx(lane)).toBe(28 + lane.topPx);
    expect(view.hitTest(600, view.rowTopPx(lane) + 7)).toEqual({ kind: 'op', op: 1, track: s });
    expect(view.hitTest(600, view.rowTopPx(lane) - 12)).toEqual({ kind: 'op', op: 0, track: s });
  });
});
