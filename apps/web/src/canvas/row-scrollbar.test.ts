import { describe, expect, it } from 'vitest';
import { fillHeightPx } from '../components/use-fill-height.ts';
import { scrollbarGeometry } from './row-scrollbar.ts';

describe('the rows scrollbar', () => {
  it('sits under the axis and pinned band and spans the rows shown', () => {
    // A 500 px canvas whose rows have 440 px under a 28 px axis and a 32 px pinned band.
    const g = scrollbarGeometry(
      { scrollTopPx: 0, contentHeightPx: 900, visibleHeightPx: 440 },
      500,
    );
    expect(g).toEqual({ shown: true, topPx: 60, heightPx: 440, contentHeightPx: 900 });
  });

  it('hides when every row fits', () => {
    const g = scrollbarGeometry(
      { scrollTopPx: 0, contentHeightPx: 440, visibleHeightPx: 440 },
      500,
    );
    expect(g.shown).toBe(false);
  });
});

describe('a trace view that fills the window', () => {
  it('ends 12 px above the bottom of the window', () => {
    // 1440 px window, the element starts 130 px down: 1440 - 130 - 12.
    expect(fillHeightPx(1440, 130, 420)).toBe(1298);
  });

  it('never gets shorter than its minimum on a small window', () => {
    expect(fillHeightPx(500, 130, 420)).toBe(420);
  });
});
