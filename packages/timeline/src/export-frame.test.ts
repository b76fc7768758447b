import { OpKind, StreamType, Trace } from '@streamscope/trace';
import { describe, expect, it } from 'vitest';
import { exportHeaderHeightPx, exportLegend, windowLabel } from './export-frame.ts';
import { fakeCanvas, manualClock } from './fake-canvas.ts';
import { createTimelineView } from './timeline-view.ts';

function kernelsAndCopy(): Trace {
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
  const name = trace.strings.intern('gemm_kernel');
  trace.addOp({ startNs: 0, endNs: 900_000, track: s, kind: OpKind.Kernel, nameId: name });
  trace.addOp({ startNs: 1_000_000, endNs: 1_500_000, track: s, kind: OpKind.CopyHtoD, nameId: 0 });
  trace.addOp({
    startNs: 1_600_000,
    endNs: 2_260_000,
    track: s,
    kind: OpKind.Kernel,
    nameId: name,
  });
  return trace;
}

describe('windowLabel', () => {
  it('names a window in one unit with three significant digits of its span', () => {
    expect(windowLabel({ startNs: 0, endNs: 2_260_000 })).toEqual({
      text: '0.00–2.26 ms',
      file: '0.00-2.26ms',
    });
    expect(windowLabel({ startNs: 1_500_000_000, endNs: 3_750_000_000 })).toEqual({
      text: '1.50–3.75 s',
      file: '1.50-3.75s',
    });
    expect(windowLabel({ startNs: 12_000, endNs: 480_000 }).file).toBe('12-480us');
  });
});

describe('exports', () => {
  it('carry a title with the window, a legend of what is drawn and the axis (SVG)', () => {
    const { canvas } = fakeCanvas(1000, 300);
    const view = createTimelineView(canvas, { clock: manualClock().clock, devicePixelRatio: 1 });
    const trace = kernelsAndCopy();
    view.setTrace(trace);
    view.setViewport({ startNs: 0, endNs: 2_260_000 });
    const svg = view.exportSvg({ title: 'resnet.pt.trace.json' });
    const headerPx = exportHeaderHeightPx(exportLegend(trace, undefined), 1000);
    expect(headerPx).toBeGreaterThan(30);
    expect(svg).toContain(`width="1000" height="${300 + headerPx}"`);
    expect(svg).toMatch(/class="header"[^>]*>resnet\.pt\.trace\.json · 0\.00–2\.26 ms<\/text>/);
    // The legend names the kinds the trace holds and the idle shading, nothing else.
    expect(svg).toMatch(/class="label"[^>]*>Kernel<\/text>/);
    expect(svg).toMatch(/class="label"[^>]*>Copy H→D<\/text>/);
    expect(svg).toMatch(/class="label"[^>]*>Idle<\/text>/);
    expect(svg).not.toContain('>Memset<');
    expect(svg).not.toContain('>Copy D→H<');
    // The axis sits under the band, its labels below the band's bottom.
    const axis = [...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)" class="axis"[^>]*>([^<]*)</g)];
    expect(axis.map((m) => m[2])).toContain('1000 µs');
    for (const m of axis) {
      expect(Number(m[1])).toBeGreaterThan(headerPx);
    }
  });

  it('paint the PNG at twice the CSS size unless told otherwise', async () => {
    const { canvas } = fakeCanvas(800, 240);
    const made: { widthDevPx: number; heightDevPx: number; text: string[] }[] = [];
    const view = createTimelineView(canvas, {
      clock: manualClock().clock,
      devicePixelRatio: 1,
      exportCanvas: (widthDevPx, heightDevPx) => {
        const fake = fakeCanvas(widthDevPx, heightDevPx);
        made.push({ widthDevPx, heightDevPx, text: fake.calls.fillText });
        return fake.canvas;
      },
    });
    const trace = kernelsAndCopy();
    view.setTrace(trace);
    view.setViewport({ startNs: 0, endNs: 2_260_000 });
    const blob = await view.exportPng({ title: 'resnet' });
    expect(blob.type).toBe('image/png');
    const headerPx = exportHeaderHeightPx(exportLegend(trace, undefined), 800);
    expect(made[0]).toMatchObject({ widthDevPx: 1600, heightDevPx: 2 * (240 + headerPx) });
    expect(made[0]!.text).toContain('resnet · 0.00–2.26 ms');
    expect(made[0]!.text).toContain('Kernel');
    await view.exportPng({ title: 'resnet', pixelRatio: 3 });
    expect(made[1]).toMatchObject({ widthDevPx: 2400, heightDevPx: 3 * (240 + headerPx) });
  });
});
