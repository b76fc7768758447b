import { FlowKind, OpKind } from '@streamscope/trace';
import type { Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { chrome, kindColors } from './colors.ts';
import { LabelFitter } from './draw-rows.ts';
import { FrameCache } from './frame-cache.ts';
import type { FrameInput } from './frame-input.ts';
import { emptyStats } from './frame-input.ts';
import type { RowLayout } from './layout.ts';
import { computeLayout, syncLaneLabel } from './layout.ts';
import { paintFrame } from './paint-frame.ts';
import { SearchMarks } from './search-marks.ts';
import { rgbaToPixel } from './strip-raster.ts';
import { frameInput, recordingSurface } from './strip-test-surface.ts';
import { syncTrace } from './sync-test-trace.ts';

const window = { startNs: 0, endNs: 100_000 };

/** One frame of `trace` over 0–100 µs: 800 px of timeline right of a 200 px gutter, 8 px/µs. */
function paint(trace: Trace, pixelRatio: number, withStrips: boolean, extra?: Partial<FrameInput>) {
  const layout = computeLayout(trace);
  const cache = new FrameCache();
  cache.update(trace, layout, window, 125, undefined);
  const rec = recordingSurface(1000, 200, pixelRatio, withStrips);
  const stats = emptyStats();
  const input = { ...frameInput(trace, layout, cache, window, 200), ...extra };
  paintFrame(rec.surface, input, new LabelFitter((id) => trace.strings.get(id)), stats);
  return { rec, layout, stats };
}

/** Screen band [top, bottom) of track 0's row or its sync lane, CSS px under the 28 px axis. */
function band(layout: RowLayout, kind: 'track' | 'sync'): [number, number] {
  const r = kind === 'track' ? layout.rowOfTrack[0]! : layout.syncRowOfTrack[0]!;
  const row = layout.rows[r]!;
  return [28 + row.topPx, 28 + row.topPx + row.heightPx];
}

const kernelPixel = rgbaToPixel(kindColors[OpKind.Kernel]!);
const syncPixel = rgbaToPixel(kindColors[OpKind.StreamSync]!);

describe('drawing host waits in their own lane', () => {
  it.each([1, 2])(
    'leaves no pixel of a synchronize over the kernel it waits for (%ix)',
    (pixelRatio) => {
      const { rec, layout, stats } = paint(syncTrace(), pixelRatio, true);
      const screen = rec.screen();
      const stripWidthPx = 800 * pixelRatio;
      const at = (x: number, y: number) => screen[y * stripWidthPx + x]!;
      const [rowTop, rowBottom] = band(layout, 'track');
      const [laneTop, laneBottom] = band(layout, 'sync');
      /** Pixels of [x0, x1) × [y0, y1) (device x, CSS y) for which `test` holds. */
      const count = (
        x0: number,
        x1: number,
        y0: number,
        y1: number,
        test: (p: number) => boolean,
      ) => {
        let n = 0;
        for (let y = y0; y < y1; y++) {
          for (let x = x0 * pixelRatio; x < x1 * pixelRatio; x++) {
            n += test(at(x, y)) ? 1 : 0;
          }
        }
        return n;
      };
      // The kernel, 10–60 µs: device x 80..480 (times the pixel ratio), inside the row's 3 px pad,
      // is all kernel.
      expect(count(80, 480, rowTop + 3, rowBottom - 3, (p) => p !== kernelPixel)).toBe(0);
      // Nowhere in the stream's row over the synchronize's time (30–62 µs, x 240..496) is its
      // colour (the stream wait at 64–66 µs shares it: the legend's 'Wait / synchronize')…
      const syncRgb = (p: number) => (p & 0xffffff) === (syncPixel & 0xffffff);
      expect(count(240, 496, rowTop, rowBottom, syncRgb)).toBe(0);
      // …it fills the lane there, inside the lane's 1 px pad.
      expect(count(240, 496, laneTop + 1, laneBottom - 1, (p) => p !== syncPixel)).toBe(0);
      expect(count(240, 496, laneTop + 1, laneBottom - 1, () => true)).toBe(256 * pixelRatio * 12);
      expect(stats.drawnOps).toBe(5);
    },
  );

  it('labels the kernel in its row and the synchronize in the lane, apart', () => {
    const { rec, layout } = paint(syncTrace(), 1, true);
    const [rowTop, rowBottom] = band(layout, 'track');
    const [laneTop, laneBottom] = band(layout, 'sync');
    const y = (value: string) => rec.texts.filter((t) => t.value === value).map((t) => t.yPx);
    expect(y('gemm')).toEqual([(rowTop + rowBottom) / 2]);
    expect(y('Stream synchronize')).toEqual([(laneTop + laneBottom) / 2]);
    // The lane's gutter label, on the lane.
    expect(y(syncLaneLabel)).toEqual([(laneTop + laneBottom) / 2]);
  });

  it('draws the lane the same way without strips (the SVG export)', () => {
    const { rec, layout } = paint(syncTrace(), 1, false);
    const [rowTop, rowBottom] = band(layout, 'track');
    const [laneTop, laneBottom] = band(layout, 'sync');
    const kernel = rec.rects.filter((r) => r.color === kindColors[OpKind.Kernel]);
    // Waits and synchronizes share one colour (the legend's 'Wait / synchronize').
    const waits = rec.rects.filter((r) => r.color === kindColors[OpKind.StreamSync]);
    expect(kernel.map((r) => [r.xPx, r.yPx, r.xPx + r.wPx, r.yPx + r.hPx])).toEqual([
      [280, rowTop + 3, 680, rowBottom - 3],
    ]);
    const ctx = layout.rows[layout.rowOfTrack[1]!]!;
    // The stream wait (64–66 µs) in the stream's row: the stream itself waits, in its order;
    // the synchronize in the lane; the event synchronize of the context track in that track's
    // own row (a track of nothing but host waits has nothing for them to cover).
    expect(waits.map((r) => [r.xPx, r.yPx, r.xPx + r.wPx, r.yPx + r.hPx])).toEqual([
      [712, rowTop + 3, 728, rowBottom - 3],
      [440, laneTop + 1, 696, laneBottom - 1],
      [520, 28 + ctx.topPx + 3, 600, 28 + ctx.topPx + ctx.heightPx - 3],
    ]);
  });

  it('puts the selection, search marks, area and flows of a host wait on its lane', () => {
    const trace = syncTrace();
    const host = trace.addTrack({ kind: 'host-thread', name: 'main', pid: 1, tid: 1 });
    const call = trace.addOp({
      startNs: 29_000,
      endNs: 62_500,
      track: host,
      kind: OpKind.ApiCall,
      nameId: trace.strings.intern('cudaStreamSynchronize'),
    });
    trace.flows.append(call, 1, FlowKind.ApiToGpu);
    const { rec, layout } = paint(trace, 1, true, {
      selectedOp: 1,
      selectedFlows: trace.flows.touching(1),
      search: new SearchMarks(trace, [0, 1]),
      area: { startNs: 20_000, endNs: 40_000, tracks: [0] },
    });
    const [rowTop, rowBottom] = band(layout, 'track');
    const [laneTop, laneBottom] = band(layout, 'sync');
    const selection = rec.strokes.filter((s) => s.color === chrome.selection);
    expect(selection.map((s) => [s.yPx, s.yPx + s.hPx])).toEqual([[laneTop + 1, laneBottom - 1]]);
    // A search mark per match, each on the row that draws it: the kernel's x 280, the wait's 440.
    const marks = rec.strokes.filter((s) => s.color === chrome.searchMatchEdge);
    expect(marks.map((s) => [s.xPx, s.yPx])).toEqual([
      [280, rowTop + 1.5],
      [440, laneTop + 1.5],
    ]);
    // The area shades the stream's row and its lane (it counts the lane's waits).
    const area = rec.rects.filter((r) => r.color === chrome.areaFill);
    expect(area.map((r) => [r.yPx, r.yPx + r.hPx])).toEqual([
      [rowTop, rowBottom],
      [laneTop, laneBottom],
    ]);
    // The call's arrow ends on the lane.
    expect(rec.arrows.map((a) => a.y1Px)).toEqual([(laneTop + laneBottom) / 2]);
  });

  it('ends an event record → wait arrow where the wait was released, within the wait', () => {
    // The event synchronize (op 4, 40–50 µs) released by a record ending at 45 µs; the stream
    // wait (op 2, 64–66 µs) by one that ended at 20 µs, before it began.
    for (const [recordEndNs, wait, x1] of [
      [45_000, 4, 200 + 45 * 8],
      [20_000, 2, 200 + 64 * 8],
    ] as const) {
      const trace = syncTrace();
      const record = trace.addOp({
        startNs: recordEndNs,
        endNs: recordEndNs,
        track: 1,
        kind: OpKind.EventRecord,
        nameId: 0,
      });
      trace.flows.append(record, wait, FlowKind.EventRecordToWait);
      const { rec } = paint(trace, 1, true, {
        selectedOp: wait,
        selectedFlows: trace.flows.touching(wait),
      });
      expect(rec.arrows.map((a) => [a.x0Px, a.x1Px])).toEqual([
        [200 + (recordEndNs / 1000) * 8, x1],
      ]);
    }
  });
});
