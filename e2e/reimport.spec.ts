import { fileURLToPath } from 'node:url';
import type { APIRequestContext } from '@playwright/test';
import { expect, idle, test } from './fixtures.ts';

// Issue #21: importing a file whose bytes were imported before offers that trace ("already
// imported as X — open it / import it again") instead of silently storing a duplicate.
const file = fileURLToPath(new URL('../fixtures/runs/pipeline-events.sstrace', import.meta.url));

async function traceCount(request: APIRequestContext): Promise<number> {
  return ((await (await request.get('/api/traces')).json()) as unknown[]).length;
}

test('a re-import offers the trace imported before, and can import again', async ({
  page,
  request,
}) => {
  await page.goto('/#/import');
  await idle(page);
  await page.getByTestId('import-file-input').setInputFiles(file);
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('import-duplicate')).toHaveCount(0);
  await idle(page);
  const before = await traceCount(request);
  await page.getByTestId('open-imported').click();
  await idle(page);
  const firstUrl = page.url();
  expect(firstUrl).toMatch(/#\/trace\/[^?]+/);
  const firstId = /#\/trace\/([^?]+)/.exec(firstUrl)![1]!;

  // The same bytes again: offered, nothing stored.
  await page.goto('/#/import');
  await idle(page);
  await page.getByTestId('import-file-input').setInputFiles(file);
  await expect(page.getByTestId('import-duplicate')).toContainText(
    'pipeline-events.sstrace was already imported as',
  );
  await idle(page);
  expect(await traceCount(request)).toBe(before);
  await page.getByTestId('open-imported').click();
  await idle(page);
  expect(page.url()).toContain(`#/trace/${firstId}`);

  // Import it again, on purpose: a second trace.
  await page.goto('/#/import');
  await idle(page);
  await page.getByTestId('import-file-input').setInputFiles(file);
  await expect(page.getByTestId('import-duplicate')).toBeVisible();
  await page.getByTestId('import-again').click();
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('import-duplicate')).toHaveCount(0);
  await idle(page);
  expect(await traceCount(request)).toBe(before + 1);
});
