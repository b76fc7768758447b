import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, idle, rendererStats, test } from './fixtures.ts';

// The dashboard on a 4K monitor (at 100% and 200% scaling, and a 3840-px-wide CSS viewport at
// deviceScaleFactor 2) and on a 1280×720 laptop: the Gantt takes the width beside the side
// panel, the page never scrolls sideways, canvases have one backing pixel per device pixel,
// and the Gantt's text is drawn at a readable size at device resolution.

const recorded = fileURLToPath(new URL('../fixtures/runs/overlap-blog.sstrace', import.meta.url));

const screens = [
  { name: '4K at 100%', viewport: { width: 3840, height: 2160 }, deviceScaleFactor: 1 },
  { name: '4K at 200%', viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 2 },
  { name: '3840 CSS px at scale 2', viewport: { width: 3840, height: 2160 }, deviceScaleFactor: 2 },
  { name: '1280×720 laptop', viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 },
] as const;

interface CanvasLayout {
  readonly dpr: number;
  readonly pageScrollWidth: number;
  readonly pageClientWidth: number;
  readonly left: number;
  readonly right: number;
  readonly clientWidth: number;
  readonly clientHeight: number;
  readonly backingWidth: number;
  readonly backingHeight: number;
  /** Every fillText on this canvas since the page loaded: font size in CSS px, context scale. */
  readonly texts: { readonly fontPx: number; readonly scale: number }[];
}

interface TextDrawWindow {
  __textDraws?: { canvas: string; fontPx: number; scale: number }[];
}

/** Records each text the page's canvases draw, with its font size and the context's scale. */
async function recordTextDraws(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const draws: { canvas: string; fontPx: number; scale: number }[] = [];
    (window as unknown as TextDrawWindow).__textDraws = draws;
    const proto = CanvasRenderingContext2D.prototype;
    const fillText = Object.getOwnPropertyDescriptor(proto, 'fillText')!
      .value as CanvasRenderingContext2D['fillText'];
    proto.fillText = function (
      this: CanvasRenderingContext2D,
      ...args: Parameters<CanvasRenderingContext2D['fillText']>
    ) {
      draws.push({
        canvas: this.canvas.dataset['testid'] ?? '',
        fontPx: Number(/(\d+(?:\.\d+)?)px/.exec(this.font)?.[1] ?? 0),
        scale: this.getTransform().a,
      });
      fillText.apply(this, args);
    };
  });
}

async function canvasLayout(page: Page, testId: string): Promise<CanvasLayout> {
  return page.evaluate((id) => {
    const canvas = document.querySelector<HTMLCanvasElement>(`[data-testid="${id}"]`)!;
    const rect = canvas.getBoundingClientRect();
    const draws = (window as unknown as TextDrawWindow).__textDraws ?? [];
    return {
      dpr: window.devicePixelRatio,
      pageScrollWidth: document.documentElement.scrollWidth,
      pageClientWidth: document.documentElement.clientWidth,
      left: rect.left,
      right: rect.right,
      clientWidth: canvas.clientWidth,
      clientHeight: canvas.clientHeight,
      backingWidth: canvas.width,
      backingHeight: canvas.height,
      texts: draws.filter((d) => d.canvas === id).map(({ fontPx, scale }) => ({ fontPx, scale })),
    };
  }, testId);
}

function expectCrispAndReadable(layout: CanvasLayout, deviceScaleFactor: number): void {
  expect(layout.dpr).toBe(deviceScaleFactor);
  expect(layout.pageScrollWidth).toBeLessThanOrEqual(layout.pageClientWidth);
  // One backing pixel per device pixel.
  expect(layout.backingWidth).toBe(Math.round(layout.clientWidth * deviceScaleFactor));
  expect(layout.backingHeight).toBe(Math.round(layout.clientHeight * deviceScaleFactor));
  // Text is drawn in CSS px of 10 or more (axis 10, labels 11) on a context scaled to device
  // pixels, so it is as large as the page's own small print and rasterized at full resolution.
  expect(layout.texts.length).toBeGreaterThan(0);
  expect(Math.min(...layout.texts.map((t) => t.fontPx))).toBeGreaterThanOrEqual(10);
  expect(new Set(layout.texts.map((t) => t.scale))).toEqual(new Set([deviceScaleFactor]));
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

for (const screen of screens) {
  test.describe(screen.name, () => {
    test.use({ viewport: screen.viewport, deviceScaleFactor: screen.deviceScaleFactor });
    test.beforeEach(async ({ page }) => {
      await recordTextDraws(page);
    });

    test('the trace view Gantt fills the width, crisp and readable, without sideways scroll', async ({
      page,
    }) => {
      await page.goto(`/#/trace/${traceId}`);
      await idle(page);
      const gantt = await canvasLayout(page, 'timeline');
      expectCrispAndReadable(gantt, screen.deviceScaleFactor);
      const side = (await page.locator('.trace-side').boundingBox())!;
      // From the page's left padding to the side panel, less the grid gap.
      expect(gantt.left).toBeLessThanOrEqual(24);
      expect(gantt.right).toBeGreaterThanOrEqual(side.x - 24);
      expect(gantt.clientWidth).toBeGreaterThanOrEqual(screen.viewport.width - side.width - 80);
      const stats = await rendererStats(page, 'timeline');
      expect(stats?.labels).toBeGreaterThan(0);
      const summaryFont = await page
        .getByTestId('trace-summary')
        .evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
      expect(summaryFont).toBeGreaterThanOrEqual(12);
    });

    test("the lessons' two Gantts are crisp and the page does not scroll sideways", async ({
      page,
    }) => {
      await page.goto('/#/lessons/issue-order-one-engine');
      await expect(page.getByTestId('lesson-issue-order-one-engine')).toHaveAttribute(
        'data-status',
        'ready',
      );
      await idle(page);
      for (const side of ['before', 'after']) {
        expectCrispAndReadable(
          await canvasLayout(page, `lesson-gantt-${side}`),
          screen.deviceScaleFactor,
        );
      }
    });

    test("the Run page's setup column stays beside the live Gantt, which fills the rest", async ({
      page,
    }) => {
      await page.goto('/#/run');
      await idle(page);
      await page.getByTestId('backend-select').selectOption('sim');
      await page.getByTestId('run-button').click();
      await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'finished', {
        timeout: 30_000,
      });
      await idle(page);
      const columns = await page.evaluate(() => {
        const setup = document.querySelector('.run-setup')!;
        const live = document.querySelector('.run-live')!.getBoundingClientRect();
        // Every control of the setup column, long option texts included, ends before the Gantt.
        const rights = Array.from(
          setup.querySelectorAll('*'),
          (el) => el.getBoundingClientRect().right,
        );
        return { setupRight: Math.max(...rights), liveLeft: live.left, liveRight: live.right };
      });
      expect(columns.setupRight).toBeLessThanOrEqual(columns.liveLeft);
      const gantt = await canvasLayout(page, 'live-timeline');
      expectCrispAndReadable(gantt, screen.deviceScaleFactor);
      expect(gantt.right).toBeGreaterThanOrEqual(columns.liveRight - 2);
      expect(gantt.left).toBeLessThanOrEqual(columns.liveLeft + 2);
    });
  });
}
