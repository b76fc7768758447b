import { readFile } from 'node:fs/promises';
import { expect, idle, test } from './fixtures.ts';
import { kinetoTrace } from './export-trace.ts';

// Issue #21, exports: the PNG and the SVG carry a title (the trace's name and the window), a
// legend and the axis; the PNG has twice the CSS pixels; file names drop the input's extensions.
test('PNG and SVG exports carry a title, a legend and the axis, named after the trace', async ({
  page,
  request,
}) => {
  const uploaded = await request.put('/api/imports?filename=resnet.pt.trace.json', {
    data: kinetoTrace(),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  const { id } = (await uploaded.json()) as { id: string };
  await page.goto(`/#/trace/${id}?t=0,2260000`);
  await idle(page);
  await expect(page.getByTestId('trace-title')).toHaveText('resnet.pt.trace.json');
  const canvasBox = (await page.getByTestId('timeline').boundingBox())!;

  const [svgDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-svg').click(),
  ]);
  expect(svgDownload.suggestedFilename()).toBe('resnet-0.00-2.26ms.svg');
  const svg = await readFile(await svgDownload.path(), 'utf8');
  expect(svg).toContain('resnet.pt.trace.json · 0.00–2.26 ms');
  expect(svg).toMatch(/class="label"[^>]*>Kernel<\/text>/);
  expect(svg).toMatch(/class="axis"[^>]*>1000 µs<\/text>/);
  const size = /<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg)!;
  const [svgWidthPx, svgHeightPx] = [Number(size[1]), Number(size[2])];
  expect(svgWidthPx).toBe(Math.round(canvasBox.width));
  // The band with the title and legend sits above the canvas' picture.
  expect(svgHeightPx).toBeGreaterThan(Math.round(canvasBox.height) + 20);

  // The text is text: selecting the drawing selects the title and the axis labels.
  const selected = await page.evaluate((markup) => {
    const host = document.createElement('div');
    host.innerHTML = markup;
    document.body.append(host);
    const selection = window.getSelection()!;
    selection.selectAllChildren(host);
    const text = selection.toString();
    host.remove();
    return text;
  }, svg);
  expect(selected).toContain('resnet.pt.trace.json · 0.00–2.26 ms');
  expect(selected).toContain('1000 µs');

  const [pngDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-png').click(),
  ]);
  expect(pngDownload.suggestedFilename()).toBe('resnet-0.00-2.26ms.png');
  const png = await readFile(await pngDownload.path());
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // IHDR: width and height, big-endian, at bytes 16 and 20. Twice the SVG's CSS px.
  expect(png.readUInt32BE(16)).toBe(2 * svgWidthPx);
  expect(png.readUInt32BE(20)).toBe(2 * svgHeightPx);
  await request.delete(`/api/traces/${id}`);
});
