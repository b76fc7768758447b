import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, idle, test } from './fixtures.ts';

// The Steps table of a two-rank FSDP job, read in the trace page's side panel at the window sizes
// people use: every column shows without scrolling sideways, and what the cells leave out (each
// figure's own unit, the total communication, the step's start) is in the row's tooltip.

const fixtures = fileURLToPath(new URL('../fixtures/kineto/', import.meta.url));

interface TraceEntry {
  readonly id: string;
  readonly title: string;
  readonly fileName?: string;
}

/** How far the steps table reaches past the panel that holds it, in px (0: it fits). */
async function overflowPx(page: Page): Promise<{ scrollPx: number; pastPanelPx: number }> {
  return page.getByTestId('steps-table').evaluate((table) => {
    const scroller = table.parentElement!;
    const panelRight = table.closest('[data-testid=steps]')!.getBoundingClientRect().right;
    const cellsRight = Math.max(
      ...Array.from(table.querySelectorAll('th, td'), (c) => c.getBoundingClientRect().right),
    );
    return {
      scrollPx: scroller.scrollWidth - scroller.clientWidth,
      pastPanelPx: Math.max(0, cellsRight - panelRight),
    };
  });
}

test('the steps table of two ranks fits the side panel at 1440×900 and 1280×800', async ({
  page,
  request,
}) => {
  await page.goto('/#/import');
  await idle(page);
  await page
    .getByTestId('import-file-input')
    .setInputFiles([0, 1].map((r) => path.join(fixtures, `fsdp2gpu-rank${r}.pt.trace.json.gz`)));
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('open-imported').click();
  await idle(page);
  await expect(page.getByTestId('steps-table')).toBeVisible({ timeout: 30_000 });

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 1280, height: 800 },
  ]) {
    await page.setViewportSize(viewport);
    await idle(page);
    expect(await overflowPx(page), `${viewport.width}×${viewport.height}`).toEqual({
      scrollPx: 0,
      pastPanelPx: 0,
    });
  }
  await expect(page.getByTestId('steps-table').locator('th')).toHaveText([
    'Step',
    'Time',
    'GPU busy',
    'Comm exposed',
    'Idle',
  ]);
  // 6 steps, 5 listed; the unit is named once, and every figure is written in it.
  await expect(page.getByTestId('steps-caption')).toHaveText('The 5 slowest, in ms');
  const rows = page.getByTestId('step-row');
  await expect(rows).toHaveCount(5);
  // Rank 1's step 3 is the slowest: 33.30 ms, 21.87 ms of its communication exposed.
  await expect(rows.first()).toHaveText(
    /^ProfilerStep#3 · rank 1\s*33\.30\s*33\.05\s*21\.87\s*0\.26$/,
  );
  for (const text of await rows.allInnerTexts()) {
    expect(text).toMatch(/^ProfilerStep#\d · rank [01]\t(\d+\.\d\d\t){3}\d+\.\d\d$/);
  }
  await expect(rows.first()).toHaveAttribute(
    'title',
    'ProfilerStep#3 · rank 1: 33.3 ms from 44.29 ms; GPU busy 33.05 ms, communication 31.98 ms ' +
      '(21.87 ms exposed, not under compute), idle 256.5 µs',
  );

  const entries = (await (await request.get('/api/traces')).json()) as TraceEntry[];
  const fsdp = (e: TraceEntry): boolean =>
    e.fileName?.startsWith('fsdp2gpu') === true || e.title.includes('fsdp2gpu-rank0');
  for (const e of entries.filter(fsdp)) {
    await request.delete(`/api/traces/${e.id}`);
  }
});
