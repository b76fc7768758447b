import type { Trace } from '@streamscope/trace';
import type { TimelineView } from '@streamscope/timeline';
import { createTimelineView, syntheticTrace } from '@streamscope/timeline';

/** What one zoom level measured: frame times (ms) and what the frames drew. */
export interface ZoomResult {
  readonly medianMs: number;
  readonly p95Ms: number;
  /** The first frame at this zoom (rebuilds the buffered bounds). */
  readonly firstMs: number;
  readonly rects: number;
  readonly drawnOps: number;
  readonly labels: number;
  readonly lodNs: number;
}

export type Zoom = 'full' | 'mid' | 'deep';

/** The page's API, driven by timeline.bench.ts through page.evaluate. */
export interface BenchApi {
  load(opCount: number): { opCount: number; spanNs: number; loadMs: number };
  measure(zoom: Zoom, frames: number): ZoomResult;
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

/** Zoom windows: the whole trace, 1/64 of it, 1/16384 of it (both centred). */
function windowFor(zoom: Zoom, spanNs: number): { startNs: number; endNs: number } {
  const widthNs = zoom === 'full' ? spanNs : zoom === 'mid' ? spanNs / 64 : spanNs / 16384;
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
  measure(zoom, frames) {
    if (trace === undefined) {
      throw new Error('load a trace first');
    }
    const start = windowFor(zoom, trace.spanNs());
    const widthNs = start.endNs - start.startNs;
    view.setViewport(start);
    // The first frame rebuilds the buffered bounds from the trace (reported as firstMs).
    view.invalidate();
    const firstMs = frame();
    const stats = view.stats();
    const times: number[] = [];
    // Each frame pans by 1% of the window, sweeping ±10% around the start as a drag would; the
    // first frame (which builds the buffered bounds) is reported apart as firstMs.
    for (let f = 0; f < frames; f++) {
      const offsetNs = widthNs * 0.01 * ((f % 20) - 10);
      view.setViewport({ startNs: start.startNs + offsetNs, endNs: start.endNs + offsetNs });
      times.push(frame());
    }
    times.sort((a, b) => a - b);
    return {
      medianMs: times[Math.floor(times.length / 2)] ?? 0,
      p95Ms: times[Math.floor(times.length * 0.95)] ?? 0,
      firstMs,
      rects: stats.rects,
      drawnOps: stats.drawnOps,
      labels: stats.labels,
      lodNs: stats.lod,
    };
  },
};
document.body.dataset['ready'] = 'true';
