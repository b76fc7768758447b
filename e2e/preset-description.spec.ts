import { expect, idle, test } from './fixtures.ts';

// The Run page's preset description follows the parameters: after the size or the bucket size
// changes it quotes the new figures, never the defaults it opened with.

test('the preset description quotes the values set, not the defaults', async ({ page }) => {
  await page.goto('/#/run');
  await idle(page);
  const description = page.getByTestId('preset-description');

  await page.getByTestId('preset-select').selectOption('overlap-blog');
  await expect(description).toContainText('16 MiB of pinned floats');
  await expect(description).toContainText('split over 4 streams');
  await page.getByTestId('param-size').fill('64MiB');
  await page.getByTestId('param-streams').fill('8');
  await expect(description).toContainText('64 MiB of pinned floats');
  await expect(description).toContainText('split over 8 streams');
  await expect(description).not.toContainText('16 MiB');
  await expect(page.getByTestId('preset-description-defaults')).toHaveCount(0);

  // DDP's gradients (24 layers × 16 MiB in 2 MiB tensors) in 4 MiB buckets: 96 of them.
  await page.getByTestId('preset-select').selectOption('ddp-bucketing');
  await expect(description).toContainText('15 buckets of 26 MiB (the last 20 MiB)');
  await page.getByTestId('param-bucketMiB').fill('4');
  await expect(description).toContainText(
    'in 96 buckets of 4 MiB: a bucket closes once it holds 4 MiB',
  );
  await expect(description).not.toContainText('25 MiB');

  // A value out of range: the figures are the defaults', and the description says so.
  await page.getByTestId('param-bucketMiB').fill('0');
  await expect(page.getByTestId('param-error-bucketMiB')).toBeVisible();
  await expect(description).toContainText('a bucket closes once it holds 25 MiB');
  await expect(page.getByTestId('preset-description-defaults')).toHaveText(
    ' (Figures for the default values, until every value below is valid.)',
  );
});
