import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
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
