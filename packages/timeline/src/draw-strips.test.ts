import { OpKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { kindColors } from './colors.ts';
import { LabelFitter } from './draw-rows.ts';
import { FrameCache } from './frame-cache.ts';
import { emptyStats } from './frame-input.ts';
import { computeLayout } from './layout.ts';
import { paintFrame } from './paint-frame.ts';
import { rgbaToPixel } from './strip-raster.ts';
import { frameInput, recordingSurface } from './strip-test-surface.ts';
import { syntheticTrace } from './synthetic-trace.ts';

describe('drawing through pixel strips', () => {
  it('rasterizes an op into its row strip at device resolution and stretches it over the row', () => {
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
    trace.addOp({ startNs: 25_000, endNs: 75_000, track: 0, kind: OpKind.Kernel, nameId: 0 });
    trace.addOp({ startNs: 80_000, endNs: 90_000, track: 0, kind: OpKind.CopyHtoD, nameId: 0 });
    const layout = computeLayout(trace);
    const cache = new FrameCache();
    const window = { startNs: 0, endNs: 100_000 };
    // 1000 CSS px wide with a 200 px gutter: 800 px for 100 µs, 8 px per µs, 16 device px at 2x.
    cache.update(trace, layout, window, 125, undefined);
    const input = frameInput(trace, layout, cache, window, 300);
    const rec = recordingSurface(1000, 300, 2);
    const stats = emptyStats();
    paintFrame(rec.surface, input, new LabelFitter(() => ''), stats);
    expect(stats.rects).toBe(2);
    expect(stats.drawnOps).toBe(2);
    expect(stats.gaps).toBe(1);
    // Strips: 0 = gaps, 1 = upper half, 2 = lower half of the stream row.
    const upper = rec.strip(1);
    expect(upper.length).toBe(1600);
    const kernel = rgbaToPixel(kindColors[OpKind.Kernel]!);
    expect(upper[399]).toBe(0);
    expect(upper[400]).toBe(kernel); // 25 µs * 16 device px/µs
    expect(upper[1199]).toBe(kernel);
    // The idle gap 75–80 µs is in the gap strip; the lanes are transparent there (and before the
    // kernel), so idle time shows only the gap band beneath them.
    const gapStrip = rec.strip(0);
    expect(gapStrip[1220]! >>> 24).toBeGreaterThan(0);
    expect(upper[1220]).toBe(0);
    expect(upper[1280]).toBe(rgbaToPixel(kindColors[OpKind.CopyHtoD]!));
    // The gap strip is drawn as a band at the bottom of the row (30% of it), then the upper
    // strip (no mixed bucket: it alone) over the row's inner height.
    const row = layout.rows[layout.rowOfTrack[0]!]!;
    const top = 28 + row.topPx;
    const bandPx = Math.max(3, Math.round(row.heightPx * 0.3));
    expect(bandPx).toBeLessThan(row.heightPx / 2);
    expect(rec.draws.map(({ pixels: _, ...place }) => place)).toEqual([
      { index: 0, xPx: 200, yPx: top + row.heightPx - bandPx, wPx: 800, hPx: bandPx },
      { index: 1, xPx: 200, yPx: top + 3, wPx: 800, hPx: row.heightPx - 6 },
    ]);
  });

  it('splits a row into halves where a merged bucket mixes kinds', () => {
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
    // 1.6 ms over 800 px: 2000 ns/px → 2048 ns buckets; both ops share bucket 0.
    trace.addOp({ startNs: 0, endNs: 600, track: 0, kind: OpKind.Kernel, nameId: 0 });
    trace.addOp({ startNs: 700, endNs: 1100, track: 0, kind: OpKind.CopyDtoH, nameId: 0 });
    const layout = computeLayout(trace);
    const cache = new FrameCache();
    const window = { startNs: 0, endNs: 1_600_000 };
    cache.update(trace, layout, window, 2000, undefined);
    const rec = recordingSurface(1000, 300, 1);
    paintFrame(
      rec.surface,
      frameInput(trace, layout, cache, window, 300),
      new LabelFitter(() => ''),
      emptyStats(),
    );
    expect(rec.draws.filter((d) => d.index === 1 || d.index === 2).map((d) => d.index)).toEqual([
      1, 2,
    ]);
    expect(rec.strip(1)[0]! & 0xffffff).toBe(rgbaToPixel(kindColors[OpKind.Kernel]!) & 0xffffff);
    expect(rec.strip(2)[0]! & 0xffffff).toBe(rgbaToPixel(kindColors[OpKind.CopyDtoH]!) & 0xffffff);
  });

  it.each([
    { pixelRatio: 1, pinnedTracks: [] },
    { pixelRatio: 2, pinnedTracks: [] },
    { pixelRatio: 1, pinnedTracks: [2] },
  ])(
    'pans by moving the strips of the last frame, to the pixels a fresh frame paints ($pixelRatio x, pinned $pinnedTracks)',
    ({ pixelRatio, pinnedTracks }) => {
      const trace = syntheticTrace({ opCount: 3000, devices: 1, streamsPerDevice: 3 });
      const layout = computeLayout(trace, { pinnedTracks });
      const cache = new FrameCache();
      const frame = (startNs: number) =>
        frameInput(trace, layout, cache, { startNs, endNs: startNs + 400_000 }, 400);
      const panned = recordingSurface(1000, 400, pixelRatio);
      // 800 CSS px for 400 µs: 500 ns per px. Pan by 37 px, then back by 120, then stay.
      const starts = [2_000_000, 2_000_000 + 37 * 500, 2_000_000 - 83 * 500, 2_000_000 - 83 * 500];
      const painted: number[] = [];
      for (const startNs of starts) {
        const input = frame(startNs);
        cache.update(trace, layout, input.window, 500, undefined);
        panned.draws.length = 0;
        const stats = emptyStats();
        paintFrame(panned.surface, input, new LabelFitter(() => ''), stats);
        painted.push(stats.paintedColumnsPx);
      }
      // Every frame after the first moved the strips (of each band) instead of painting them.
      const bands = pinnedTracks.length > 0 ? 2 : 1;
      expect(panned.keeps).toEqual([
        ...new Array<boolean>(bands).fill(false),
        ...new Array<boolean>(3 * bands).fill(true),
      ]);
      expect(painted).toEqual([800, 37, 120, 0].map((px) => px * pixelRatio * bands));
      // A new surface paints the last frame whole, from the same buffers (a rebuilt cache would
      // round Float32 offsets from another base).
      const fresh = recordingSurface(1000, 400, pixelRatio);
      paintFrame(fresh.surface, frame(starts[3]!), new LabelFitter(() => ''), emptyStats());
      const shown = fresh.screen();
      expect(shown.some((p) => p !== 0)).toBe(true);
      expect(Array.from(panned.screen())).toEqual(Array.from(shown));
    },
  );
});
