import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, idle, test, viewSpanNs } from './fixtures.ts';

// Issue #21, "height follows the window": the trace view fills the window at 1280×720,
// 1440×900 and 2560×1440 with no page scroll; rows that do not fit get a scrollbar; the plain
// wheel over the track labels scrolls them, over the Gantt it zooms (Perfetto's convention).
const train = fileURLToPath(new URL('../fixtures/nsys/2025.3.1/train.json', import.meta.url));
// Two NCCL ranks with their host threads, streams and NVTX: more rows than 720 px hold.
const nccl2 = fileURLToPath(new URL('../fixtures/nsys/2025.3.1/nccl2.json.gz', import.meta.url));

const screens = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
  { width: 2560, height: 1440 },
] as const;

/** Top of the first scrolling row, CSS px from the canvas top (moves up as the rows scroll). */
async function firstRowTopPx(page: Page): Promise<number> {
  return page.evaluate(() => {
    const hooks = window as unknown as {
      __timelineRows: (id: string) => { topPx: number }[];
    };
    return hooks.__timelineRows('timeline')[0]!.topPx;
  });
}

let traceId = '';
let manyRowsId = '';

test.beforeAll(async ({ request }) => {
  for (const [file, name] of [
    [train, 'train.json'],
    [nccl2, 'nccl2.json.gz'],
  ] as const) {
    const uploaded = await request.put(`/api/imports?filename=${name}`, {
      data: await readFile(file),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(uploaded.status()).toBe(201);
    const { id } = (await uploaded.json()) as { id: string };
    if (name === 'train.json') {
      traceId = id;
    } else {
      manyRowsId = id;
    }
  }
});

test.afterAll(async ({ request }) => {
  await request.delete(`/api/traces/${traceId}`);
  await request.delete(`/api/traces/${manyRowsId}`);
});

for (const screen of screens) {
  test.describe(`${screen.width}×${screen.height}`, () => {
    test.use({ viewport: screen });

    test('the trace view fills the window height without scrolling the page', async ({ page }) => {
      await page.goto(`/#/trace/${traceId}`);
      await idle(page);
      const fit = await page.evaluate(() => ({
        pageHeightPx: document.documentElement.scrollHeight,
        windowHeightPx: window.innerHeight,
        panelsBottomPx: document.querySelector('.bottom-panels')!.getBoundingClientRect().bottom,
        canvasHeightPx: document.querySelector('[data-testid="timeline"]')!.clientHeight,
      }));
      expect(fit.pageHeightPx).toBeLessThanOrEqual(fit.windowHeightPx);
      // The details under the Gantt end 12 px above the bottom of the window.
      expect(fit.panelsBottomPx).toBeGreaterThan(fit.windowHeightPx - 14);
      expect(fit.panelsBottomPx).toBeLessThanOrEqual(fit.windowHeightPx - 10);
      // The Gantt takes what the toolbar and the details leave: over half of the window.
      expect(fit.canvasHeightPx).toBeGreaterThan(screen.height * 0.5);
    });
  });
}

test.describe('rows that do not fit', () => {
  test.use({ viewport: { width: 1280, height: 720 } });

  test('get a scrollbar; the wheel scrolls over the labels and zooms over the Gantt', async ({
    page,
  }) => {
    await page.goto(`/#/trace/${manyRowsId}`);
    await idle(page);
    const bar = page.getByTestId('timeline-scrollbar');
    await expect(bar).toBeVisible();
    const box = (await page.getByTestId('timeline').boundingBox())!;
    const y = box.y + box.height / 2;
    const spanNs = await viewSpanNs(page, 'timeline');
    const top0 = await firstRowTopPx(page);

    // Over the labels: the rows scroll, the window stays.
    await page.mouse.move(box.x + 60, y);
    await page.mouse.wheel(0, 120);
    await idle(page);
    const top1 = await firstRowTopPx(page);
    expect(top1).toBeLessThan(top0);
    expect(await viewSpanNs(page, 'timeline')).toBe(spanNs);
    await expect.poll(() => bar.evaluate((el) => el.scrollTop)).toBe(top0 - top1);

    // Over the Gantt: it zooms, the rows stay.
    await page.mouse.move(box.x + 200 + (box.width - 200) / 2, y);
    await page.mouse.wheel(0, -200);
    await idle(page);
    expect(await viewSpanNs(page, 'timeline')).toBeLessThan(spanNs * 0.9);
    expect(await firstRowTopPx(page)).toBe(top1);

    // Dragging the scrollbar's thumb scrolls the rows back to the top.
    await bar.evaluate((el) => {
      el.scrollTop = 0;
    });
    await expect.poll(() => firstRowTopPx(page)).toBe(top0);
  });
});
