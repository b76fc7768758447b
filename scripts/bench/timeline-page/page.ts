import type { Trace } from '@streamscope/trace';
import type { TimelineView } from '@streamscope/timeline';
import { createTimelineView, syntheticTrace } from '@streamscope/timeline';

/** A batch of frames at one zoom: their times (ms) and what the unpanned frame drew. */
export interface FrameBatch {
  readonly timesMs: number[];
  /** The first frame at this zoom, rebuilding the buffered bounds (only when firstFrame is 0). */
  readonly firstMs: number;
  readonly rects: number;
  readonly drawnOps: number;
  readonly labels: number;
  readonly lodNs: number;
}

export type Zoom = 'full' | 'mid' | 'deep';

/** How the frames of a batch move the view: a drag (pan) or a wheel (zoom). */
export type Motion = 'pan' | 'zoom';

/** The page's API, driven by timeline.bench.ts through page.evaluate. */
export interface BenchApi {
  load(opCount: number): { opCount: number; spanNs: number; loadMs: number };
  /**
   * Draws `count` frames at `zoom`, moving as frames firstFrame, firstFrame + 1, … of a drag
   * (`pan`) or a wheel (`zoom`); firstFrame 0 starts the zoom (and times the rebuild).
   */
  frames(zoom: Zoom, count: number, firstFrame: number, motion: Motion): FrameBatch;
}

declare global {
  interface Window {
    bench?: BenchApi;
  }
}

// A fixed 1600 x 900 CSS px canvas at devicePixelRatio 1 (the benchmark's viewport).
const canvas = document.getElementById('timeline') as HTMLCanvasElement;
const view: TimelineView = createTimelineView(canvas, { devicePixelRatio: 1 });
view.resize(1600, 900);
let trace: Trace | undefined;
const ctx = canvas.getContext('2d');

/** One frame: draw now, then read a pixel so the canvas really rasterizes what was drawn. */
function frame(): number {
  const t0 = performance.now();
  view.renderNow();
  ctx?.getImageData(0, 0, 1, 1);
  return performance.now() - t0;
}

/** Width of the deep zoom window, ns: about 1/16384 of the 1M-op trace's span. */
const deepWindowNs = 32_000;

/**
 * Zoom windows, centred: the whole trace, 1/64 of it, and the same 32 µs at every size. The
 * synthetic traces keep one op density at every size, so the deep window shows the same few
 * labelled ops per row whatever the trace holds, and comparing sizes there measures what the
 * trace's size costs. (A share of the span, as full and mid are, would be 29 ns at 1k ops, a
 * sliver of one kernel per row, against 84 labelled ops at 1M.)
 */
function windowFor(zoom: Zoom, spanNs: number): { startNs: number; endNs: number } {
  const widthNs = zoom === 'full' ? spanNs : zoom === 'mid' ? spanNs / 64 : deepWindowNs;
  const midNs = spanNs / 2;
  return { startNs: midNs - widthNs / 2, endNs: midNs + widthNs / 2 };
}

window.bench = {
  load(opCount) {
    view.setTrace(undefined);
    trace = undefined;
    const t0 = performance.now();
    trace = syntheticTrace({ opCount });
    view.setTrace(trace);
    return { opCount: trace.ops.count, spanNs: trace.spanNs(), loadMs: performance.now() - t0 };
  },
  frames(zoom, count, firstFrame, motion) {
    if (trace === undefined) {
      throw new Error('load a trace first');
    }
    const start = windowFor(zoom, trace.spanNs());
    const widthNs = start.endNs - start.startNs;
    let firstMs = -1;
    if (firstFrame === 0) {
      view.setViewport(start);
      // The first frame rebuilds the buffered bounds from the trace.
      view.invalidate();
      firstMs = frame();
    }
    const stats = view.stats();
    const timesMs: number[] = [];
    // A drag pans each frame by 1% of the window, sweeping ±10% around the start; a wheel
    // zooms each frame by 1% about the middle, sweeping the width over 90–109% (the scale
    // changes every frame, so everything is painted again; the level of detail stays).
    for (let f = firstFrame; f < firstFrame + count; f++) {
      const step = 0.01 * ((f % 20) - 10);
      if (motion === 'pan') {
        const offsetNs = widthNs * step;
        view.setViewport({ startNs: start.startNs + offsetNs, endNs: start.endNs + offsetNs });
      } else {
        const halfNs = (widthNs * (1 + step)) / 2;
        const midNs = (start.startNs + start.endNs) / 2;
        view.setViewport({ startNs: midNs - halfNs, endNs: midNs + halfNs });
      }
      timesMs.push(frame());
    }
    return {
      timesMs,
      firstMs,
      rects: stats.rects,
      drawnOps: stats.drawnOps,
      labels: stats.labels,
      lodNs: stats.lod,
    };
  },
};
document.body.dataset['ready'] = 'true';
