import { readFile } from 'node:fs/promises';
import { expect, idle, test } from './fixtures.ts';
import { kinetoTrace } from './export-trace.ts';

// Issue #21: the rightmost axis label was clipped ("20" for "2000 µs") in the view and in
// exports. At each size the window ends on a tick; its label must be drawn whole.
for (const size of [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
  { width: 2560, height: 1440 },
  { width: 1000, height: 700 },
]) {
  test(`the rightmost axis label is whole at ${size.width}×${size.height}`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize(size);
    const uploaded = await request.put('/api/imports?filename=axis.pt.trace.json', {
      data: kinetoTrace(),
      headers: { 'content-type': 'application/octet-stream' },
    });
    const { id } = (await uploaded.json()) as { id: string };
    await page.goto(`/#/trace/${id}?t=0,2000000`);
    await idle(page);
    const timeline = page.getByTestId('timeline');
    // No ink in the canvas' last 3 columns of the label line (above the tick marks): a label
    // running past the edge would be cut there.
    const inkAtEdge = await timeline.evaluate((canvas: HTMLCanvasElement) => {
      const ratio = canvas.width / canvas.clientWidth;
      const data = canvas
        .getContext('2d')!
        .getImageData(
          canvas.width - Math.ceil(3 * ratio),
          0,
          Math.ceil(3 * ratio),
          Math.round(18 * ratio),
        ).data;
      let dark = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i]! + data[i + 1]! + data[i + 2]! < 600) {
          dark++;
        }
      }
      return dark;
    });
    expect(inkAtEdge).toBe(0);

    // In the SVG export, measured by the browser: every axis label ends inside the drawing, and
    // the last one is the 2 ms tick's.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-svg').click(),
    ]);
    const svg = await readFile(await download.path(), 'utf8');
    expect(svg).toContain('class="axis"');
    const labels = await page.evaluate((markup) => {
      const host = document.createElement('div');
      host.innerHTML = markup;
      document.body.append(host);
      const root = host.querySelector('svg')!;
      const widthPx = Number(root.getAttribute('width'));
      const out = Array.from(root.querySelectorAll<SVGTextElement>('text.axis')).map((t) => {
        const box = t.getBBox();
        return { label: t.textContent ?? '', endPx: box.x + box.width, widthPx };
      });
      host.remove();
      return out;
    }, svg);
    const ticks = labels.filter((l) => !l.label.startsWith('time ('));
    expect(ticks.length).toBeGreaterThan(2);
    for (const tick of ticks) {
      expect(tick.endPx).toBeLessThanOrEqual(tick.widthPx);
    }
    // The 2 ms tick's label, shifted left; or, where that would run into the label before it
    // (100 µs steps at 2560 px), the label before it ends the axis.
    expect(ticks[ticks.length - 1]!.label).toMatch(/^(2000 µs|2 ms|2\.0 ms|1900 µs|1\.9 ms)$/);
    await request.delete(`/api/traces/${id}`);
  });
}
