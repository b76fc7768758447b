import type { TileSet } from '@streamscope/trace';
import { OpKind, Trace, noKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { kindColors } from './colors.ts';
import { fakeCanvas, manualClock } from './fake-canvas.ts';
import { FrameCache } from './frame-cache.ts';
import { IntervalBuilder } from './interval-buffers.ts';
import { computeLayout } from './layout.ts';
import type { TileSource } from './tile-source.ts';
import { appendTileBuckets } from './tile-source.ts';
import { createTimelineView } from './timeline-view.ts';

/** One stream, whose window trace holds ops at 0..9 µs (1 µs apart, 500 ns long). */
function windowTrace(): Trace {
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
  for (let i = 0; i < 10; i++) {
    trace.addOp({
      startNs: i * 1000,
      endNs: i * 1000 + 500,
      track: 0,
      kind: OpKind.Kernel,
      nameId: 0,
    });
  }
  return trace;
}

/** Buckets of 1000 ns for track 0: 3, 4 and 9 (a long copy reaching 3000 ns past its start). */
function tiles(): TileSet {
  return {
    level: 2,
    bucketNs: 1000,
    trackFirst: Uint32Array.of(0, 3),
    buckets: Uint32Array.of(3, 4, 9),
    opCounts: Uint32Array.of(5, 1, 7),
    busyNs: Float32Array.of(900, 3000, 100),
    spanNs: Float32Array.of(1000, 3000, 1000),
    kinds: Uint16Array.of(
      OpKind.Kernel | (OpKind.Memset << 8),
      OpKind.CopyHtoD | (noKind << 8),
      OpKind.Kernel | (noKind << 8),
    ),
  };
}

class FakeSource implements TileSource {
  version = 0;
  spanNs = 1e9;
  exact: { startNs: number; endNs: number } | undefined;
  readonly wanted: number[][] = [];
  exactRange() {
    return this.exact;
  }
  want(fromNs: number, toNs: number, nsPerPx: number): void {
    this.wanted.push([fromNs, toNs, nsPerPx]);
  }
  appendTrack(
    out: IntervalBuilder,
    row: number,
    track: number,
    fromNs: number,
    toNs: number,
    baseNs: number,
  ): number {
    return appendTileBuckets(out, row, tiles(), track, fromNs, toNs, baseNs);
  }
}

describe('tiles as a source of rectangles', () => {
  it('draws each bucket over its span in its dominant kind, with the second kind as mix, counts kept', () => {
    const out = new IntervalBuilder();
    out.reset(1);
    out.beginRow(0);
    const ops = appendTileBuckets(out, 0, tiles(), 0, 3500, 20_000, 1000);
    out.endRow(0);
    // Bucket 3 reaches 3500; 4 and 9 start after it.
    expect(ops).toBe(13);
    expect(out.count).toBe(3);
    expect([...out.starts.subarray(0, 3)]).toEqual([2000, 3000, 8000]);
    expect([...out.ends.subarray(0, 3)]).toEqual([3000, 6000, 9000]);
    expect([...out.counts.subarray(0, 3)]).toEqual([5, 1, 7]);
    // Bucket 3 was 90% busy (alpha 1) with kernels, memsets a third as busy; bucket 9 10% busy.
    expect(out.colors[0]! >>> 8).toBe(kindColors[OpKind.Kernel]! >>> 8);
    expect(out.colors[0]! & 0xff).toBe(255);
    expect(out.mixes[0]! >>> 8).toBe(kindColors[OpKind.Memset]! >>> 8);
    expect(out.mixes[1]).toBe(0);
    expect(out.colors[2]! & 0xff).toBeLessThan(255);
    expect(out.items[0]).toBe(-1);
  });

  it('makes the frame cache draw streams from tiles outside the exact range, from ops inside it', () => {
    const trace = windowTrace();
    const layout = computeLayout(trace);
    const cache = new FrameCache();
    const source = new FakeSource();
    cache.tileSource = source;
    // No exact range yet: tiles, and the source is asked for the window.
    expect(cache.update(trace, layout, { startNs: 0, endNs: 10_000 }, 10, undefined)).toBe(true);
    expect(cache.fromTiles).toBe(true);
    expect(cache.culledItems).toBe(13);
    expect(source.wanted.at(-1)).toEqual([0, 10_000, 10]);
    // Nothing changed: reused.
    expect(cache.update(trace, layout, { startNs: 0, endNs: 10_000 }, 10, undefined)).toBe(false);
    // The window's exact ops arrived: from ops.
    source.exact = { startNs: -5000, endNs: 15_000 };
    source.version++;
    expect(cache.update(trace, layout, { startNs: 0, endNs: 10_000 }, 10, undefined)).toBe(true);
    expect(cache.fromTiles).toBe(false);
    expect(cache.culledItems).toBe(10);
    // Bounds stay inside the exact range, so leaving it rebuilds from tiles.
    expect(cache.boundsStartNs).toBeGreaterThanOrEqual(-5000);
    expect(cache.boundsEndNs).toBeLessThanOrEqual(15_000);
    expect(cache.update(trace, layout, { startNs: 10_000, endNs: 20_000 }, 10, undefined)).toBe(
      true,
    );
    expect(cache.fromTiles).toBe(true);
  });

  it('fits the whole trace the tiles stand for, not the window its trace holds', () => {
    const view = createTimelineView(fakeCanvas(1200, 400).canvas, {
      clock: manualClock().clock,
      devicePixelRatio: 1,
    });
    view.setTileSource(new FakeSource());
    view.setTrace(windowTrace());
    view.fit();
    // fitViewport leaves 2% of air on each side of [0, 1e9].
    expect(view.getViewport().endNs).toBeGreaterThan(1e9);
    view.fitGpu();
    expect(view.getViewport().endNs).toBeGreaterThan(1e9);
    view.setTileSource(undefined);
    view.fit();
    expect(view.getViewport().endNs).toBeLessThan(20_000);
    view.dispose();
  });
});
