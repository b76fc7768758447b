import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, idle, rendererStats, test } from './fixtures.ts';

// Issue #21: `?` opens the shortcut overlay (which states the wheel's convention), W/S zoom about
// the mouse when it is over the Gantt, a time cursor shows the time under the mouse on the axis,
// and `M` marks the selected op's range with its duration.
const recorded = fileURLToPath(new URL('../fixtures/runs/overlap-blog.sstrace', import.meta.url));

interface TextWindow {
  __timelineTexts?: string[];
}

/** Records every text the 'timeline' canvas draws. */
async function recordTexts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const texts: string[] = [];
    (window as unknown as TextWindow).__timelineTexts = texts;
    const proto = CanvasRenderingContext2D.prototype;
    const fillText = Object.getOwnPropertyDescriptor(proto, 'fillText')!
      .value as CanvasRenderingContext2D['fillText'];
    proto.fillText = function (
      this: CanvasRenderingContext2D,
      ...args: Parameters<CanvasRenderingContext2D['fillText']>
    ) {
      if (this.canvas.dataset['testid'] === 'timeline') {
        texts.push(args[0]);
      }
      fillText.apply(this, args);
    };
  });
}

/** ns per unit of the durations the app prints ("12.5 µs"). */
const unitNs: Record<string, number> = { ns: 1, µs: 1e3, ms: 1e6, s: 1e9 };

/** The time (ns) at page x over the Gantt, from the view's window (200 px gutter). */
async function timeAtPageX(page: Page, pageX: number): Promise<number> {
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const stats = (await rendererStats(page, 'timeline'))!;
  const spanNs = stats.viewEndNs - stats.viewStartNs;
  return stats.viewStartNs + ((pageX - box.x - 200) / (box.width - 200)) * spanNs;
}

let traceId = '';

test.beforeAll(async ({ request }) => {
  const uploaded = await request.put('/api/imports?filename=overlap-blog.sstrace', {
    data: await readFile(recorded),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  traceId = ((await uploaded.json()) as { id: string }).id;
});

test.afterAll(async ({ request }) => {
  await request.delete(`/api/traces/${traceId}`);
});

test('? opens the shortcut overlay, which says what the wheel does where', async ({ page }) => {
  await page.goto(`/#/trace/${traceId}`);
  await idle(page);
  await expect(page.getByTestId('shortcut-help')).toHaveCount(0);
  await page.keyboard.press('Shift+Slash');
  const help = page.getByTestId('shortcut-help');
  await expect(help).toBeVisible();
  await expect(help).toContainText('Wheel over the track labels');
  await expect(help).toContainText('Scroll the rows');
  await expect(help).toContainText('Zoom in / out about the mouse');
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);
  await page.getByTestId('open-help').click();
  await expect(help).toBeVisible();
  await page.getByTestId('shortcut-help-close').click();
  await expect(help).toHaveCount(0);
});

test('W and S zoom about the mouse over the Gantt, and about the middle elsewhere', async ({
  page,
}) => {
  await page.goto(`/#/trace/${traceId}`);
  await idle(page);
  const box = (await page.getByTestId('timeline').boundingBox())!;
  // A quarter of the way into the Gantt: the time there stays under the mouse.
  const x = box.x + 200 + (box.width - 200) * 0.25;
  await page.mouse.move(x, box.y + box.height / 2);
  const before = await timeAtPageX(page, x);
  const spanBefore = (await rendererStats(page, 'timeline'))!;
  await page.keyboard.press('KeyW');
  await idle(page);
  const afterW = (await rendererStats(page, 'timeline'))!;
  expect(afterW.viewEndNs - afterW.viewStartNs).toBeLessThan(
    (spanBefore.viewEndNs - spanBefore.viewStartNs) * 0.9,
  );
  expect(await timeAtPageX(page, x)).toBeCloseTo(before, -1);
  await page.keyboard.press('KeyS');
  await idle(page);
  expect(await timeAtPageX(page, x)).toBeCloseTo(before, -1);

  // With the mouse off the timeline, the middle of the window stays put.
  await page.mouse.move(box.x + 10, box.y - 20);
  const now = (await rendererStats(page, 'timeline'))!;
  const midNow = (now.viewStartNs + now.viewEndNs) / 2;
  await page.keyboard.press('KeyW');
  await idle(page);
  const centred = (await rendererStats(page, 'timeline'))!;
  expect((centred.viewStartNs + centred.viewEndNs) / 2).toBeCloseTo(midNow, -1);
});

test('a time cursor shows the time under the mouse on the axis', async ({ page }) => {
  await recordTexts(page);
  await page.goto(`/#/trace/${traceId}`);
  await idle(page);
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const x = box.x + 200 + (box.width - 200) * 0.6;
  await page.evaluate(() => {
    (window as unknown as TextWindow).__timelineTexts!.length = 0;
  });
  await page.mouse.move(x, box.y + box.height / 2);
  await idle(page);
  const expectedNs = await timeAtPageX(page, x);
  const texts = await page.evaluate(() => (window as unknown as TextWindow).__timelineTexts!);
  const times = texts
    .map((t) => /^(-?\d+(?:\.\d+)?) (ns|µs|ms|s)$/.exec(t))
    .filter((m) => m !== null)
    .map((m) => Number(m[1]) * unitNs[m[2]!]!);
  // The cursor's label is the time under the mouse (to its 3-4 significant digits).
  expect(times.some((ns) => Math.abs(ns - expectedNs) <= expectedNs * 0.002)).toBe(true);
});

test('M marks the selected op with its duration; M again clears it', async ({ page }) => {
  await page.goto(`/#/trace/${traceId}`);
  await idle(page);
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const x = box.x + 200 + (box.width - 200) * 0.3;
  let hit = false;
  for (let y = box.y + 30; y < box.y + box.height && !hit; y += 5) {
    await page.mouse.move(x, y);
    hit = await page.getByTestId('tooltip').isVisible();
  }
  expect(hit).toBe(true);
  await page.mouse.down();
  await page.mouse.up();
  await idle(page);
  const duration = await page.getByTestId('details-duration').innerText();
  await page.keyboard.press('KeyM');
  await expect(page.getByTestId('mark-duration')).toHaveText(duration);
  await page.keyboard.press('KeyM');
  await expect(page.getByTestId('mark')).toHaveCount(0);
});
