import type { Page } from '@playwright/test';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeBigKinetoTrace } from './big-kineto-trace.ts';
import { expect, idle, test } from './fixtures.ts';

interface ProgressWindow {
  __seenProgress?: { stage: string; doneBytes: number; fraction: number }[];
}

const kernels = 300_000;
let bigTrace = '';

test.beforeAll(async () => {
  bigTrace = path.join(tmpdir(), `streamscope-e2e-big-${process.pid}.json`);
  await writeBigKinetoTrace(bigTrace, kernels);
});

test.afterAll(async () => {
  await rm(bigTrace, { force: true });
});

/** Records every state the import bar shows, frame by frame, into window.__seenProgress. */
async function recordProgress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as ProgressWindow;
    w.__seenProgress = [];
    const tick = (): void => {
      const bar = document.querySelector('[data-testid="import-progress"]');
      const value = document.querySelector<HTMLProgressElement>(
        '[data-testid="import-progress-bar"]',
      );
      if (bar !== null && value !== null) {
        const seen = {
          stage: bar.getAttribute('data-stage') ?? '',
          doneBytes: Number(bar.getAttribute('data-done-bytes')),
          fraction: value.value,
        };
        const last = w.__seenProgress!.at(-1);
        if (last?.stage !== seen.stage || last.doneBytes !== seen.doneBytes) {
          w.__seenProgress!.push(seen);
        }
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

test('the import bar covers the upload and then the server parse, step by step', async ({
  page,
  request,
}) => {
  await page.goto('/#/import');
  await idle(page);
  await recordProgress(page);
  await page.getByTestId('import-file-input').setInputFiles(bigTrace);
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 60_000 });
  await idle(page);

  const seen = await page.evaluate(() => (window as unknown as ProgressWindow).__seenProgress);
  const parsing = (seen ?? []).filter((p) => p.stage === 'parsing');
  // Several distinct parse steps, each further into the file and past the upload's half.
  expect(parsing.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < parsing.length; i++) {
    expect(parsing[i]!.doneBytes).toBeGreaterThan(parsing[i - 1]!.doneBytes);
    expect(parsing[i]!.fraction).toBeGreaterThanOrEqual(parsing[i - 1]!.fraction);
  }
  expect(parsing[0]!.fraction).toBeGreaterThanOrEqual(0.5);
  // The upload came first: no upload state after the parse began.
  const firstParse = seen!.findIndex((p) => p.stage === 'parsing');
  expect(seen!.slice(firstParse).some((p) => p.stage === 'uploading')).toBe(false);

  const entries = (await (await request.get('/api/traces')).json()) as {
    id: string;
    opCount: number;
    fileName?: string;
  }[];
  const entry = entries.find((e) => e.fileName === path.basename(bigTrace));
  expect(entry?.opCount).toBe(2 * kernels);
  await expect(page.getByTestId('import-done')).toContainText(
    `${(2 * kernels).toLocaleString('en-US')} ops`,
  );
  await request.delete(`/api/traces/${entry!.id}`);
});

test('an import cancelled while the server parses it stops there and keeps nothing', async ({
  page,
  request,
}) => {
  await page.goto('/#/import');
  await idle(page);
  await page.getByTestId('import-file-input').setInputFiles(bigTrace);
  const bar = page.getByTestId('import-progress');
  await expect(bar).toHaveAttribute('data-stage', 'parsing', { timeout: 30_000 });
  await expect(page.getByTestId('import-stage')).toContainText('on the server');
  await page.getByTestId('import-cancel').click();
  await expect(page.getByTestId('import-cancelled')).toBeVisible();
  await expect(bar).toHaveCount(0);
  await idle(page);
  const entries = (await (await request.get('/api/traces')).json()) as { fileName?: string }[];
  expect(entries.filter((e) => e.fileName === path.basename(bigTrace))).toEqual([]);
});
