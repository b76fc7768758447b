import type { TileSet } from '@streamscope/trace';
import { OpKind, Trace, noKind } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { fakeCanvas, manualClock } from './fake-canvas.ts';
import type { GapTable } from './gaps.ts';
import { GapCause } from './gaps.ts';
import type { IntervalBuilder } from './interval-buffers.ts';
import { searchBuckets } from './search-buckets.ts';
import type { TileSource } from './tile-source.ts';
import { appendTileBuckets } from './tile-source.ts';
import { createTimelineView } from './timeline-view.ts';

/** Two streams; the window holds track 0's ops at 0..9 µs (1 µs apart, 500 ns long). */
function windowTrace(): Trace {
  const trace = new Trace();
  trace.addDevice({ deviceId: 0, name: '' });
  for (const streamId of [1, 2]) {
    trace.addTrack({
      kind: 'gpu-stream',
      name: '',
      pid: 1,
      deviceId: 0,
      contextId: 1,
      streamId,
      streamType: 'blocking',
      priority: 0,
    });
  }
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

/** One bucket of 1000 ns per µs on track 0, each holding one kernel. */
function tiles(): TileSet {
  const n = 10;
  return {
    level: 0,
    bucketNs: 1000,
    trackFirst: Uint32Array.of(0, n, n),
    buckets: Uint32Array.from({ length: n }, (_, i) => i),
    opCounts: new Uint32Array(n).fill(1),
    busyNs: new Float32Array(n).fill(500),
    spanNs: new Float32Array(n).fill(500),
    kinds: new Uint16Array(n).fill(OpKind.Kernel | (noKind << 8)),
  };
}

class Source implements TileSource {
  version = 0;
  spanNs = 10_000;
  exact: { startNs: number; endNs: number } | undefined;
  exactRange() {
    return this.exact;
  }
  want(): void {}
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

// 1200 px wide with a 200 px gutter: 1000 px for [0, 10 000] ns, 0.1 px per ns.
function tiledView() {
  const view = createTimelineView(fakeCanvas(1200, 400).canvas, {
    clock: manualClock().clock,
    devicePixelRatio: 1,
    gutterPx: 200,
  });
  const source = new Source();
  view.setTileSource(source);
  view.setTrace(windowTrace());
  view.setViewport({ startNs: 0, endNs: 10_000 });
  return { view, source };
}

describe('a tiled view marks what the server says of the whole trace', () => {
  it('draws a strip per run of search buckets over rows shown from tiles', () => {
    const { view } = tiledView();
    // Buckets 2 and 3 touch on screen (x 400–500 and 500–600): one strip; bucket 7 another.
    // Track 1 has one more at bucket 12, past the window: not drawn.
    view.setSearchBuckets(
      searchBuckets(1000, [
        { track: 0, buckets: [2, 3, 7], counts: [1, 4, 2] },
        { track: 1, buckets: [12], counts: [3] },
      ]),
    );
    const stats = view.renderNow();
    expect(stats.fromTiles).toBe(true);
    expect(stats.searchMarks).toBe(2);
    view.setSearchBuckets(undefined);
    expect(view.renderNow().searchMarks).toBe(0);
    view.dispose();
  });

  it('leaves search buckets out inside a window of exact ops (its own matches mark it)', () => {
    const { view, source } = tiledView();
    view.setSearchBuckets(searchBuckets(1000, [{ track: 0, buckets: [2], counts: [1] }]));
    source.exact = { startNs: -Infinity, endNs: Infinity };
    source.version++;
    view.invalidate();
    const stats = view.renderNow();
    expect(stats.fromTiles).toBe(false);
    expect(stats.searchMarks).toBe(0);
    view.dispose();
  });

  it('refuses search buckets that are not in ascending order', () => {
    expect(() => searchBuckets(1000, [{ track: 3, buckets: [4, 4], counts: [1, 1] }])).toThrow(
      'search buckets of track 3 are not ascending at 1',
    );
    expect(() => searchBuckets(0, [])).toThrow('positive bucketNs');
  });

  it('finds a gap under a click only where the row is drawn from exact ops', () => {
    const { view, source } = tiledView();
    // A gap of the whole trace between the ops at 2 µs and 3 µs: 2500–3000 ns.
    const gaps: GapTable = {
      count: 1,
      startNs: Float64Array.of(2500),
      endNs: Float64Array.of(3000),
      track: Uint16Array.of(0),
      cause: Uint8Array.of(GapCause.Idle),
    };
    view.setGaps(gaps);
    view.renderNow();
    const row = view.getLayout().rows.find((r) => r.kind === 'track' && r.track === 0)!;
    const yPx = view.rowTopPx(row) + row.heightPx / 2;
    // x of 2750 ns: 200 + 275 px. Drawn from tiles: the click is not the gap's.
    expect(view.gapAt(475, yPx)).toBeUndefined();
    // The window's exact ops arrived: the gap is drawn and takes its clicks.
    source.exact = { startNs: 0, endNs: 10_000 };
    source.version++;
    view.invalidate();
    expect(view.renderNow().fromTiles).toBe(false);
    expect(view.gapAt(475, yPx)).toBe(0);
    view.dispose();
  });
});
