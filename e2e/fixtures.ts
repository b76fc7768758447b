import { expect, test as base } from '@playwright/test';
import type { Page } from '@playwright/test';

/** What the app's test hooks report per mounted timeline (apps/web/src/test-mode). */
export interface RendererStats {
  readonly drawnOps: number;
  readonly rects: number;
  readonly labels: number;
  readonly paintedColumnsPx: number;
  readonly frameMs: number;
  readonly lod: number;
  readonly traceOps: number;
  readonly frames: number;
  readonly viewStartNs: number;
  readonly viewEndNs: number;
}

interface TestWindow {
  __STREAMSCOPE_TEST__?: boolean;
  __waitForIdle?: () => Promise<void>;
  __rendererStats?: () => Record<string, RendererStats>;
}

/** Every page starts in test mode: the app exposes its idle signal and renderer stats. */
export const test = base.extend({
  page: async ({ page }, use) => {
    await page.addInitScript(() => {
      (window as unknown as TestWindow).__STREAMSCOPE_TEST__ = true;
    });
    await use(page);
  },
});

export { expect };

/** Resolves when no fetch, upload, live run, frame or URL update is pending for 100 ms. */
export async function idle(page: Page): Promise<void> {
  await page.waitForFunction(
    () => typeof (window as unknown as TestWindow).__waitForIdle === 'function',
  );
  await page.evaluate(() => (window as unknown as TestWindow).__waitForIdle?.());
}

/** The last frame's statistics of the timeline with this data-testid. */
export async function rendererStats(
  page: Page,
  viewId: string,
): Promise<RendererStats | undefined> {
  return page.evaluate((id) => (window as unknown as TestWindow).__rendererStats?.()[id], viewId);
}

/** Visible window span (ns) of a timeline, from its stats. */
export async function viewSpanNs(page: Page, viewId: string): Promise<number> {
  const stats = await rendererStats(page, viewId);
  if (stats === undefined) {
    throw new Error(`no renderer stats for ${viewId}`);
  }
  return stats.viewEndNs - stats.viewStartNs;
}

/** One row of a timeline as the test hook reports it (apps/web/src/test-mode/timeline-rows.ts). */
export interface RowProbe {
  readonly kind: string;
  readonly label: string;
  readonly track: number;
  readonly topPx: number;
  readonly heightPx: number;
}

/** The rows of a mounted timeline, top to bottom, with their kind, label and place on screen. */
export async function rows(page: Page, viewId = 'timeline'): Promise<RowProbe[]> {
  return page.evaluate((id) => {
    const hooks = window as unknown as { __timelineRows: (view: string) => RowProbe[] };
    return hooks.__timelineRows(id);
  }, viewId);
}
