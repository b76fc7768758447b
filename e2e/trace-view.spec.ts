import { readFile } from 'node:fs/promises';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, idle, rendererStats, test, viewSpanNs } from './fixtures.ts';

/** Runs the blog workload on the simulator through the REST API and waits for it to finish. */
async function blogRun(request: APIRequestContext, variant: string): Promise<string> {
  const started = await request.post('/api/runs', {
    data: {
      preset: 'overlap-blog',
      params: { variant },
      backend: 'sim',
      target: 'c1060',
      pace: 'fast',
    },
  });
  expect(started.status()).toBe(202);
  const { id } = (await started.json()) as { id: string };
  await expect
    .poll(
      async () =>
        ((await (await request.get(`/api/traces/${id}`)).json()) as { status: string }).status,
    )
    .toBe('finished');
  return id;
}

/** Moves the pointer down the middle of the timeline until the tooltip shows an op. */
async function pointAtAnOp(page: Page): Promise<{ x: number; y: number }> {
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const x = box.x + 200 + (box.width - 200) * 0.3;
  for (let y = box.y + 30; y < box.y + box.height; y += 5) {
    await page.mouse.move(x, y);
    if (await page.getByTestId('tooltip').isVisible()) {
      return { x, y };
    }
  }
  throw new Error('no op under the pointer anywhere down the timeline');
}

test('zoom, pan, select, search and area-select on a trace', async ({ page, request }) => {
  const id = await blogRun(request, 'depth-first');
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const fullSpanNs = await viewSpanNs(page, 'timeline');
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const midX = box.x + 200 + (box.width - 200) / 2;
  const midY = box.y + box.height / 2;

  // Wheel zooms in around the pointer.
  await page.mouse.move(midX, midY);
  await page.mouse.wheel(0, -400);
  await idle(page);
  const zoomedSpanNs = await viewSpanNs(page, 'timeline');
  expect(zoomedSpanNs).toBeLessThan(fullSpanNs * 0.9);

  // Dragging pans: same span, later start.
  const before = (await rendererStats(page, 'timeline'))!;
  await page.mouse.move(midX, midY);
  await page.mouse.down();
  await page.mouse.move(midX - 200, midY, { steps: 5 });
  await page.mouse.up();
  await idle(page);
  const after = (await rendererStats(page, 'timeline'))!;
  expect(after.viewStartNs).toBeGreaterThan(before.viewStartNs);
  expect(after.viewEndNs - after.viewStartNs).toBeCloseTo(
    before.viewEndNs - before.viewStartNs,
    -1,
  );

  // W and S zoom by key position (event.code), whatever the keyboard layout.
  await page.getByTestId('fit').click();
  await idle(page);
  await page.keyboard.press('KeyW');
  await idle(page);
  expect(await viewSpanNs(page, 'timeline')).toBeLessThan(fullSpanNs);
  await page.keyboard.press('KeyS');
  await page.keyboard.press('KeyS');
  await idle(page);
  await page.getByTestId('fit').click();
  await idle(page);
  expect(await viewSpanNs(page, 'timeline')).toBeCloseTo(fullSpanNs, -3);

  // Hover shows a tooltip; a click selects the op and shows its details.
  const at = await pointAtAnOp(page);
  const hovered = await page.getByTestId('tooltip').innerText();
  await page.mouse.click(at.x, at.y);
  await idle(page);
  await expect(page.getByTestId('details-name')).toBeVisible();
  expect(hovered).toContain(await page.getByTestId('details-name').innerText());

  // Search by name counts matches over the whole trace and steps through them.
  await page.getByTestId('search-input').fill('memcpy DtoH');
  await page.getByTestId('search-input').press('Enter');
  await idle(page);
  // Four chunks, one device-to-host copy each.
  await expect(page.getByTestId('search-count')).toHaveText('1 of 4');
  await page.getByTestId('search-next').click();
  await idle(page);
  await expect(page.getByTestId('search-count')).toHaveText('2 of 4');
  await expect(page.getByTestId('details-name')).toHaveText('memcpy DtoH');

  // Shift-drag selects an area and tabulates what is in it.
  await page.keyboard.press('Escape');
  await page.getByTestId('fit').click();
  await idle(page);
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + 205, box.y + 35);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width - 5, box.y + box.height - 5, { steps: 8 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await idle(page);
  await expect(page.getByTestId('area-table')).toBeVisible();
  expect(await page.getByTestId('area-row').count()).toBeGreaterThan(0);
});

test('compare two runs on aligned scales, with the speedup', async ({ page, request }) => {
  const a = await blogRun(request, 'depth-first');
  const b = await blogRun(request, 'breadth-first');
  await page.goto(`/#/compare?a=${a}&b=${b}`);
  await idle(page);
  // On the C1060 the blog measured breadth-first at 0.68 of sequential, depth-first at 1.06.
  await expect(page.getByTestId('compare-speedup')).toContainText('faster');
  const speedup = Number(
    /([\d.]+)×/.exec(await page.getByTestId('compare-speedup').innerText())![1],
  );
  expect(speedup).toBeGreaterThan(1.3);
  const statsA = (await rendererStats(page, 'compare-a'))!;
  const statsB = (await rendererStats(page, 'compare-b'))!;
  expect(statsA.drawnOps).toBeGreaterThan(0);
  expect(statsB.drawnOps).toBeGreaterThan(0);
  // Aligned: both views show the same time window.
  expect(statsB.viewStartNs).toBe(statsA.viewStartNs);
  expect(statsB.viewEndNs).toBe(statsA.viewEndNs);
});

test('exports the view as a PNG and an SVG', async ({ page, request }) => {
  const id = await blogRun(request, 'sequential');
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const [png] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-png').click(),
  ]);
  const pngBytes = await readFile(await png.path());
  expect([...pngBytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(pngBytes.length).toBeGreaterThan(5000);
  const [svg] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-svg').click(),
  ]);
  const svgText = await readFile(await svg.path(), 'utf8');
  expect(svgText).toContain('<svg');
  expect(svgText).toContain('memcpy HtoD');
});

test('a trackpad pinch (a wheel with ctrlKey, as browsers send it) zooms the timeline', async ({
  page,
  request,
}) => {
  const id = await blogRun(request, 'breadth-first');
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const fullSpanNs = await viewSpanNs(page, 'timeline');
  const box = (await page.getByTestId('timeline').boundingBox())!;
  await page.mouse.move(box.x + 200 + (box.width - 200) / 2, box.y + box.height / 2);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -40);
  await page.keyboard.up('Control');
  await idle(page);
  // A pinch step counts ten times a scroll step: 40 px of pinch zooms by 2^0.8 (1.74x), where
  // 40 px of scrolling would zoom by 2^0.08 (1.06x). The page itself does not zoom.
  expect(await viewSpanNs(page, 'timeline')).toBeLessThan(fullSpanNs / 1.5);
  expect(await page.evaluate(() => window.devicePixelRatio)).toBe(1);
});

test('the legend opens over the summary and a click elsewhere closes it', async ({
  page,
  request,
}) => {
  const id = await blogRun(request, 'breadth-first');
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  await page.getByText('Legend', { exact: true }).click();
  await expect(page.getByTestId('legend')).toBeVisible();
  // A click inside it keeps it open; one on the timeline closes it.
  await page.getByTestId('legend').click();
  await expect(page.getByTestId('legend')).toBeVisible();
  const box = (await page.getByTestId('timeline').boundingBox())!;
  await page.mouse.click(box.x + 300, box.y + 40);
  await expect(page.getByTestId('legend')).toBeHidden();
});
