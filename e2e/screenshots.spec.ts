import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, idle, rendererStats, test } from './fixtures.ts';

// Pixel-exact pictures of the Gantt: a recorded trace at a fixed window and a lesson's pair,
// in Debian chromium at the config's fixed viewport and deviceScaleFactor 1. The baselines sit
// in screenshots.spec.ts-snapshots/; after a deliberate change to how the Gantt draws, update
// them with `pnpm test:e2e e2e/screenshots.spec.ts --update-snapshots` and look at the diff.

// A pinned copy of fixtures/runs/overlap-blog.sstrace (as of commit 15fdb49): the fixtures are
// re-recorded on the GPU now and then, and a new recording must not move these baselines.
const recorded = fileURLToPath(
  new URL('./screenshot-traces/overlap-blog-h100.sstrace', import.meta.url),
);

/** The timeline canvas' RGBA bytes, read in the page. */
async function canvasPixels(page: Page): Promise<Buffer> {
  const base64 = await page.getByTestId('timeline').evaluate((canvas: HTMLCanvasElement) => {
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let binary = '';
    for (let i = 0; i < data.length; i += 0x8000) {
      binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  });
  return Buffer.from(base64, 'base64');
}

/** No tolerance: the same build draws the same pixels on the same machine. */
const exact = { animations: 'disabled', caret: 'hide', maxDiffPixels: 0 } as const;

test('the Gantt of a recorded trace at a fixed window', async ({ page, request }) => {
  const uploaded = await request.put('/api/imports?filename=overlap-blog.sstrace', {
    data: await readFile(recorded),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  const entry = (await uploaded.json()) as { id: string; spanNs: number; opCount: number };
  // The middle 60% of the recorded run: labels, bars and axis ticks all in view.
  const startNs = Math.round(entry.spanNs * 0.2);
  const endNs = Math.round(entry.spanNs * 0.8);
  await page.goto(`/#/trace/${entry.id}?t=${startNs},${endNs}`);
  await idle(page);
  const stats = await rendererStats(page, 'timeline');
  expect(stats?.traceOps).toBe(entry.opCount);
  expect(stats?.drawnOps).toBeGreaterThan(0);
  expect(stats?.viewStartNs).toBe(startNs);
  expect(stats?.viewEndNs).toBe(endNs);
  await expect(page.getByTestId('timeline')).toHaveScreenshot('recorded-overlap-blog.png', exact);
  await request.delete(`/api/traces/${entry.id}`);
});

test('a drag pans to the picture a fresh view of the panned window draws', async ({
  browser,
  page,
  request,
}) => {
  const uploaded = await request.put('/api/imports?filename=overlap-blog.sstrace', {
    data: await readFile(recorded),
    headers: { 'content-type': 'application/octet-stream' },
  });
  const entry = (await uploaded.json()) as { id: string; spanNs: number };
  const timeline = page.getByTestId('timeline');
  const startNs = Math.round(entry.spanNs * 0.3);
  const endNs = Math.round(entry.spanNs * 0.7);
  await page.goto(`/#/trace/${entry.id}?t=${startNs},${endNs}`);
  await idle(page);
  const box = (await timeline.boundingBox())!;
  await page.mouse.move(box.x + 700, box.y + box.height / 2);
  await page.mouse.down();
  // Each frame of the drag moves the strips and paints only the 10 columns it uncovers.
  for (let step = 1; step <= 4; step++) {
    await page.mouse.move(box.x + 700 - 10 * step, box.y + box.height / 2);
    await idle(page);
    expect((await rendererStats(page, 'timeline'))?.paintedColumnsPx).toBe(10);
  }
  await page.mouse.up();
  await idle(page);
  // The Gantt is the canvas less its 200 px gutter.
  const ganttPx = Math.round(box.width) - 200;
  const panned = await rendererStats(page, 'timeline');
  const movedNs = (40 * (endNs - startNs)) / ganttPx;
  expect(panned?.viewStartNs).toBeCloseTo(startNs + movedNs, 3);
  expect(panned?.viewEndNs).toBeCloseTo(endNs + movedNs, 3);
  await page.mouse.move(box.x + 10, box.y + 10);
  await idle(page);
  const fresh = await browser.newPage({ viewport: page.viewportSize()! });
  await fresh.addInitScript(() => {
    (window as unknown as { __STREAMSCOPE_TEST__: boolean }).__STREAMSCOPE_TEST__ = true;
  });
  // The link names the panned window exactly (the app's own links round to whole ns).
  const link = `/#/trace/${entry.id}?t=${panned!.viewStartNs},${panned!.viewEndNs}`;
  await fresh.goto(new URL(link, page.url()).href);
  await idle(fresh);
  // A rebuilt view rounds its Float32 offsets from another base, so an edge pixel may differ by
  // one level of 255; nothing else may (a missed gap shade is about 18 levels).
  const [a, b] = [await canvasPixels(page), await canvasPixels(fresh)];
  expect(a.length).toBe(b.length);
  let offByMore = 0;
  for (let i = 0; i < a.length; i++) {
    if (Math.abs(a[i]! - b[i]!) > 1) {
      offByMore++;
    }
  }
  expect(offByMore).toBe(0);
  await fresh.close();
  await request.delete(`/api/traces/${entry.id}`);
});

test("a lesson's before and after Gantts", async ({ page }) => {
  await page.goto('/#/lessons/issue-order-one-engine');
  await expect(page.getByTestId('lesson-issue-order-one-engine')).toHaveAttribute(
    'data-status',
    'ready',
  );
  await idle(page);
  await expect(page.getByTestId('lesson-gantt-before')).toHaveScreenshot(
    'lesson-issue-order-before.png',
    exact,
  );
  await expect(page.getByTestId('lesson-gantt-after')).toHaveScreenshot(
    'lesson-issue-order-after.png',
    exact,
  );
});

// The README's pictures: the trace page of a real PyTorch training step (a pinned copy of
// fixtures/kineto/train.pt.trace.json.gz) at the three sizes issue #21 was walked through at,
// with the launch-range and queue-depth rows on. The baselines are the pictures.
const train = fileURLToPath(new URL('./screenshot-traces/train.pt.trace.json.gz', import.meta.url));

for (const size of [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
  { width: 2560, height: 1440 },
]) {
  test(`the trace page of a PyTorch step at ${size.width}×${size.height}`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize(size);
    const uploaded = await request.put('/api/imports?filename=train.pt.trace.json.gz', {
      data: await readFile(train),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(uploaded.status()).toBe(201);
    const { id } = (await uploaded.json()) as { id: string };
    await page.goto(`/#/trace/${id}?lanes=launch,queue`);
    await idle(page);
    expect((await rendererStats(page, 'timeline'))?.drawnOps).toBeGreaterThan(0);
    await expect(page).toHaveScreenshot(`trace-page-${size.width}x${size.height}.png`, exact);
    await request.delete(`/api/traces/${id}`);
  });
}
