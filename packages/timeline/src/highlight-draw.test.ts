import { describe, expect, it } from 'vitest';
import { chrome } from './colors.ts';
import { LabelFitter } from './draw-rows.ts';
import { FrameCache } from './frame-cache.ts';
import { emptyStats } from './frame-input.ts';
import { computeLayout } from './layout.ts';
import { paintFrame } from './paint-frame.ts';
import { SearchMarks } from './search-marks.ts';
import { frameInput, recordingSurface } from './strip-test-surface.ts';
import { syncTrace } from './sync-test-trace.ts';

const window = { startNs: 0, endNs: 100_000 };

describe('a highlighted set of ops', () => {
  it('outlines every op of the set on the row that draws it, and nothing without a set', () => {
    const trace = syncTrace();
    const layout = computeLayout(trace);
    const paint = (highlight: SearchMarks | undefined) => {
      const cache = new FrameCache();
      cache.update(trace, layout, window, 125, undefined);
      const rec = recordingSurface(1000, 200, 1, true);
      const input = { ...frameInput(trace, layout, cache, window, 200), highlight };
      paintFrame(rec.surface, input, new LabelFitter((id) => trace.strings.get(id)), emptyStats());
      return rec.strokes.filter((s) => s.color === chrome.selection);
    };
    expect(paint(undefined)).toEqual([]);
    const ops = trace.ops.columns();
    // 800 px for 100 µs right of the 200 px gutter: x = 200 + startNs / 125, less 1 px of edge.
    const outlined = paint(new SearchMarks(trace, [0, 1]));
    expect(outlined.map((s) => s.xPx).sort((a, b) => a - b)).toEqual(
      [0, 1].map((op) => 200 + ops.startNs[op]! / 125 - 1).sort((a, b) => a - b),
    );
  });
});
