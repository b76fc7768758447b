import type { LayoutRow, RowLayout, TimelineView } from '@streamscope/timeline';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  attachTimelineInput,
  isTypingTarget,
  tracksBetween,
  wheelScrollsRows,
} from './timeline-input.ts';

interface Window_ {
  startNs: number;
  endNs: number;
}

/** The parts of a view the wheel and keys use: `widthPx` of timeline, no gutter. */
function fakeView(initial: Window_, widthPx = 1000) {
  let viewport = initial;
  let scrollTopPx = 0;
  const pans: number[] = [];
  const view = {
    pans,
    panByPx: (dxPx: number) => {
      pans.push(dxPx);
    },
    getViewport: () => viewport,
    setViewport: (next: Window_) => {
      if (next.startNs !== viewport.startNs || next.endNs !== viewport.endNs) {
        viewport = next;
      }
    },
    xAtTime: (timeNs: number) =>
      ((timeNs - viewport.startNs) / (viewport.endNs - viewport.startNs)) * widthPx,
    getGutterPx: () => 0,
    getScroll: () => ({ scrollTopPx, contentHeightPx: 0, viewportHeightPx: 0 }),
    setScrollTopPx: (value: number) => {
      scrollTopPx = value;
    },
  };
  return { view: view as unknown as TimelineView, setViewport: view.setViewport, pans };
}

function wheel(canvas: HTMLCanvasElement, deltaY: number): void {
  canvas.dispatchEvent(
    new WheelEvent('wheel', { deltaY, clientX: 500, clientY: 50, bubbles: true, cancelable: true }),
  );
}

describe('wheel zoom on the timeline', () => {
  beforeEach(() => {
    // A wheel gesture lasts until 150 ms pass without a wheel event: frozen time keeps it open.
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('goes on from where Fit put the view when the wheel gesture is still open', () => {
    const canvas = document.createElement('canvas');
    document.body.append(canvas);
    const { view, setViewport } = fakeView({ startNs: 0, endNs: 1000 });
    const detach = attachTimelineInput(canvas, view, () => undefined, false);
    // d3-zoom: 100 px of wheel is a factor of 2^(100 * 0.002) about the pointer.
    const factor = 2 ** 0.2;
    wheel(canvas, -100);
    expect(view.getViewport().endNs - view.getViewport().startNs).toBeCloseTo(1000 / factor, 6);
    // Fit (any move by other means) while the gesture is open; the next wheel step zooms it.
    setViewport({ startNs: 0, endNs: 2000 });
    wheel(canvas, -100);
    const after = view.getViewport();
    expect(after.startNs).toBeCloseTo(1000 - 1000 / factor, 6);
    expect(after.endNs).toBeCloseTo(1000 + 1000 / factor, 6);
    detach();
    canvas.remove();
  });

  it('keeps reading one gesture from its start while nothing else moves the view', () => {
    const canvas = document.createElement('canvas');
    document.body.append(canvas);
    const { view } = fakeView({ startNs: 0, endNs: 1000 });
    const detach = attachTimelineInput(canvas, view, () => undefined, false);
    wheel(canvas, -100);
    wheel(canvas, -100);
    wheel(canvas, 100);
    const after = view.getViewport();
    // Net one step in, about x = 500 (t = 500 ns).
    expect(after.startNs).toBeCloseTo(500 - 500 / 2 ** 0.2, 6);
    expect(after.endNs).toBeCloseTo(500 + 500 / 2 ** 0.2, 6);
    detach();
    canvas.remove();
  });

  it('pans by whole px on A and D, so the pixel strips move instead of being painted again', () => {
    const canvas = document.createElement('canvas');
    document.body.append(canvas);
    const { view, pans } = fakeView({ startNs: 0, endNs: 1000 }, 1001);
    const detach = attachTimelineInput(canvas, view, () => undefined, true);
    window.dispatchEvent(new KeyboardEvent('keydown', { code: 'KeyD' }));
    window.dispatchEvent(new KeyboardEvent('keydown', { code: 'KeyA' }));
    // 15% of 1001 px is 150.15 px.
    expect(pans).toEqual([150, -150]);
    detach();
    canvas.remove();
  });
});

describe('the tracks of a shift-drag', () => {
  // Rows 20 px apart from y = 0: a header, stream 3, its sync lane, stream 4.
  const rows = [
    { kind: 'group', track: -1 },
    { kind: 'track', track: 3 },
    { kind: 'sync', track: 3 },
    { kind: 'track', track: 4 },
  ] as unknown as LayoutRow[];
  const view = {
    getLayout: () => ({ rows }) as unknown as RowLayout,
    rowAt: (yPx: number) => rows[Math.floor(yPx / 20)],
  };

  it('counts a drag within a sync lane for its stream, not for every stream', () => {
    expect(tracksBetween(view, 45, 55)).toEqual([3]);
    expect(tracksBetween(view, 45, 65)).toEqual([3, 4]);
    expect(tracksBetween(view, 5, 30)).toEqual([3]);
  });
});

describe('what the wheel does where', () => {
  const plain = { shiftKey: false, ctrlKey: false, metaKey: false };

  it('scrolls the rows over the track labels and zooms over the Gantt, as Perfetto does', () => {
    expect(wheelScrollsRows({ ...plain, offsetX: 199 }, 200)).toBe(true);
    expect(wheelScrollsRows({ ...plain, offsetX: 200 }, 200)).toBe(false);
  });

  it('scrolls with shift anywhere, and always zooms with ctrl or cmd (a pinch)', () => {
    expect(wheelScrollsRows({ ...plain, shiftKey: true, offsetX: 600 }, 200)).toBe(true);
    expect(wheelScrollsRows({ ...plain, ctrlKey: true, offsetX: 20 }, 200)).toBe(false);
    expect(wheelScrollsRows({ ...plain, metaKey: true, offsetX: 20 }, 200)).toBe(false);
  });
});

describe('which focused elements keep the shortcuts off', () => {
  it('lets keys through from a ticked checkbox but not from a text field', () => {
    const box = document.createElement('input');
    box.type = 'checkbox';
    expect(isTypingTarget(box)).toBe(false);
    const text = document.createElement('input');
    expect(isTypingTarget(text)).toBe(true);
    const search = document.createElement('input');
    search.type = 'search';
    expect(isTypingTarget(search)).toBe(true);
    expect(isTypingTarget(document.createElement('textarea'))).toBe(true);
    expect(isTypingTarget(document.createElement('select'))).toBe(true);
    expect(isTypingTarget(document.createElement('button'))).toBe(false);
  });
});
