import { OpKind, StreamType, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { fakeCanvas, manualClock } from './fake-canvas.ts';
import { avgCharWidthPerFontPx, fontPx } from './paint-surface.ts';
import { axisLabelWidthPx } from './axis-ticks.ts';
import { createTimelineView } from './timeline-view.ts';

function oneKernel(): Trace {
  const trace = new Trace();
  trace.addDevice({ deviceId: 0, name: '' });
  const s = trace.addTrack({
    kind: 'gpu-stream',
    name: '',
    pid: 1,
    deviceId: 0,
    contextId: 1,
    streamId: 7,
    streamType: StreamType.NonBlocking,
    priority: 0,
  });
  trace.addOp({ startNs: 0, endNs: 2_000_000, track: s, kind: OpKind.Kernel, nameId: 0 });
  return trace;
}

/** The axis labels of an SVG export: text, x and right end (estimated as the renderer does). */
function axisLabels(svg: string): { label: string; xPx: number; endPx: number }[] {
  const charPx = fontPx.axis * avgCharWidthPerFontPx;
  return [
    ...svg.matchAll(/<text x="([\d.-]+)" y="[\d.-]+" class="axis"[^>]*>([^<]*)<\/text>/g),
  ].map((m) => ({
    label: m[2]!,
    xPx: Number(m[1]),
    endPx: Number(m[1]) + axisLabelWidthPx(m[2]!, charPx),
  }));
}

describe('the time axis', () => {
  it('draws the rightmost label whole at several widths', () => {
    for (const widthPx of [480, 640, 800, 1000, 1280, 1440, 2560]) {
      const { canvas } = fakeCanvas(widthPx, 300);
      const view = createTimelineView(canvas, { clock: manualClock().clock, devicePixelRatio: 1 });
      view.setTrace(oneKernel());
      // 0 to 2000 µs: the last tick (2000 µs or 2 ms) sits on the right edge.
      view.setViewport({ startNs: 0, endNs: 2_000_000 });
      const labels = axisLabels(view.exportSvg()).filter((l) => !l.label.startsWith('time ('));
      expect(labels.length).toBeGreaterThan(1);
      for (const label of labels) {
        expect(label.endPx).toBeLessThanOrEqual(widthPx);
      }
      const last = labels[labels.length - 1]!;
      expect(last.label).toMatch(/^2(000 µs|\.0 ms| ms|\.00 ms)$/);
    }
  });

  it('leaves out a tick label the cursor label covers, and only that one', () => {
    const { canvas, calls } = fakeCanvas(1000, 300);
    const view = createTimelineView(canvas, { clock: manualClock().clock, devicePixelRatio: 1 });
    view.setTrace(oneKernel());
    view.setViewport({ startNs: 0, endNs: 2_000_000 });
    const labels = axisLabels(view.exportSvg()).filter((l) => !l.label.startsWith('time ('));
    const middle = labels[Math.floor(labels.length / 2)]!;
    const others = labels.filter((l) => l !== middle).map((l) => l.label);
    // The cursor on the middle tick: its label box is centred there, over that tick's label.
    view.setCursor(view.timeAtX(middle.xPx));
    calls.fillText.length = 0;
    view.renderNow();
    expect(calls.fillText).not.toContain(middle.label);
    expect(calls.fillText).toEqual(expect.arrayContaining(others.slice(0, 1)));
    expect(calls.fillText).toEqual(expect.arrayContaining(others.slice(-1)));
  });

  it('gives the canvas the same shifted label', () => {
    const { canvas, calls } = fakeCanvas(1000, 300);
    const view = createTimelineView(canvas, { clock: manualClock().clock, devicePixelRatio: 1 });
    view.setTrace(oneKernel());
    view.setViewport({ startNs: 0, endNs: 2_000_000 });
    view.renderNow();
    const svgLabels = axisLabels(view.exportSvg()).map((l) => l.label);
    for (const label of svgLabels) {
      expect(calls.fillText).toContain(label);
    }
  });
});
