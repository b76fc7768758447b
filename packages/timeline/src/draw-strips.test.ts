import { OpKind, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { kindColors } from './colors.ts';
import { LabelFitter } from './draw-rows.ts';
import type { TimeWindow } from './frame-cache.ts';
import { FrameCache } from './frame-cache.ts';
import type { FrameInput } from './frame-input.ts';
import { emptyStats } from './frame-input.ts';
import type { RowLayout } from './layout.ts';
import { computeLayout } from './layout.ts';
import { paintFrame } from './paint-frame.ts';
import type { PaintSurface, StripTarget } from './paint-surface.ts';
import { rgbaToPixel } from './strip-raster.ts';
import { syntheticTrace } from './synthetic-trace.ts';

/** `src` over `dst`, both 0xAABBGGRR with straight alpha, as drawImage composites. */
function over(dst: number, src: number): number {
  const sa = (src >>> 24) / 255;
  const da = (dst >>> 24) / 255;
  const a = sa + da * (1 - sa);
  if (a === 0) {
    return 0;
  }
  const channel = (shift: number) =>
    Math.round((((src >>> shift) & 0xff) * sa + ((dst >>> shift) & 0xff) * da * (1 - sa)) / a);
  return ((Math.round(a * 255) << 24) | (channel(16) << 16) | (channel(8) << 8) | channel(0)) >>> 0;
}

/** A surface that keeps strip pixels and records strip draws; vector calls are counted. */
function recordingSurface(widthPx: number, heightPx: number, pixelRatio: number) {
  /** Each draw with the strip's pixels as drawn (its slot's, uploaded for that frame). */
  const draws: {
    index: number;
    xPx: number;
    yPx: number;
    wPx: number;
    hPx: number;
    pixels: Uint32Array;
  }[] = [];
  const slots: Uint32Array<ArrayBuffer>[] = [];
  const keeps: boolean[] = [];
  let pixels = new Uint32Array(0);
  let stripWidthPx = 0;
  let fillRects = 0;
  const strips: StripTarget = {
    pixelRatio,
    beginStrips(slot, count, widthDevPx, keep) {
      keeps.push(keep);
      let kept = slots[slot];
      if (!keep || kept?.length !== count * widthDevPx) {
        kept = new Uint32Array(count * widthDevPx);
        slots[slot] = kept;
      }
      pixels = kept;
      stripWidthPx = widthDevPx;
      return pixels;
    },
    drawStrip(index, xPx, yPx, wPx, hPx) {
      draws.push({ index, xPx, yPx, wPx, hPx, pixels: strip(index).slice() });
    },
  };
  const surface: PaintSurface = {
    widthPx,
    heightPx,
    strips,
    fillRect: () => {
      fillRects++;
    },
    strokeRect: () => undefined,
    line: () => undefined,
    arrow: () => undefined,
    text: () => undefined,
    pushClip: () => undefined,
    popClip: () => undefined,
  };
  const strip = (index: number) =>
    pixels.subarray(index * stripWidthPx, (index + 1) * stripWidthPx);
  /** The screen the strip draws composite to, a row per CSS px (each draw over whole rows). */
  const screen = (): Uint32Array => {
    const out = new Uint32Array(stripWidthPx * heightPx);
    for (const d of draws) {
      for (let y = Math.round(d.yPx); y < Math.round(d.yPx + d.hPx); y++) {
        for (let x = 0; x < stripWidthPx; x++) {
          out[y * stripWidthPx + x] = over(out[y * stripWidthPx + x]!, d.pixels[x]!);
        }
      }
    }
    return out;
  };
  return { surface, draws, keeps, strip, screen, fillRects: () => fillRects };
}

/** A frame of `trace` over `window` on a 1000 CSS px wide surface with a 200 px gutter. */
function frameInput(
  trace: Trace,
  layout: RowLayout,
  cache: FrameCache,
  window: TimeWindow,
  heightPx: number,
): FrameInput {
  return {
    trace,
    layout,
    cache,
    window,
    widthPx: 1000,
    heightPx,
    gutterPx: 200,
    axisHeightPx: 28,
    scrollTopPx: 0,
    selectedOp: undefined,
    selectedFlows: [],
    search: undefined,
    currentMatch: undefined,
    area: undefined,
  };
}

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
    // The idle gap 75–80 µs fills the gap strip, and the lanes hold it beneath the ops.
    const gapStrip = rec.strip(0);
    expect(gapStrip[1220]! >>> 24).toBeGreaterThan(0);
    expect(upper[1220]).toBe(gapStrip[1220]);
    expect(upper[1280]).toBe(rgbaToPixel(kindColors[OpKind.CopyHtoD]!));
    // No mixed bucket: the upper strip alone covers the row's inner height; the gap strip fills
    // only the padding above and below it, so the row is drawn once over its height.
    const row = layout.rows[layout.rowOfTrack[0]!]!;
    const top = 28 + row.topPx;
    expect(rec.draws.map(({ pixels: _, ...place }) => place)).toEqual([
      { index: 0, xPx: 200, yPx: top, wPx: 800, hPx: 3 },
      { index: 0, xPx: 200, yPx: top + row.heightPx - 3, wPx: 800, hPx: 3 },
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
