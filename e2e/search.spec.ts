import { expect, idle, rendererStats, test } from './fixtures.ts';
import { probeOps, selection, uploadRun } from './interaction-helpers.ts';

// Issue #21: search updates as you type, has a regular-expression toggle (an invalid one says so
// inline), shows "k of N", and next/previous never scroll to negative time or past the end.
test('search as you type, with a regex toggle, k of N, inside the trace', async ({
  page,
  request,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const id = await uploadRun(request, 'over-sync.sstrace');
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const stats = (await rendererStats(page, 'timeline'))!;
  const all = await probeOps(
    page,
    Array.from({ length: stats.traceOps }, (_, i) => i),
  );
  const first = [...all].sort((a, b) => a.startNs - b.startNs)[0]!;
  const sameName = all.filter((o) => o.name === first.name).length;
  const input = page.getByTestId('search-input');
  const count = page.getByTestId('search-count');

  // Typing alone (no Enter) finds the matches; nothing is visited yet.
  await input.pressSequentially(first.name, { delay: 20 });
  await idle(page);
  await expect(count).toHaveText(sameName === 1 ? '1 match' : `${sameName} matches`);

  // Zoomed out, the earliest match centred would start before 0: the window is clamped.
  await input.blur();
  await page.getByTestId('timeline').hover();
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press('KeyS');
  }
  await idle(page);
  await page.getByTestId('search-next').click();
  await idle(page);
  await expect(count).toHaveText(`1 of ${sameName}`);
  const { traceSpanNs } = await selection(page);
  let view = (await rendererStats(page, 'timeline'))!;
  expect(view.viewStartNs).toBeGreaterThanOrEqual(0);
  expect(view.viewEndNs).toBeLessThanOrEqual(traceSpanNs);
  // Previous from the first wraps to the last, and stays before the end.
  await page.getByTestId('search-prev').click();
  await idle(page);
  await expect(count).toHaveText(`${sameName} of ${sameName}`);
  view = (await rendererStats(page, 'timeline'))!;
  expect(view.viewStartNs).toBeGreaterThanOrEqual(0);
  expect(view.viewEndNs).toBeLessThanOrEqual(traceSpanNs);

  // A regular expression: the name anchored at both ends finds the same ops.
  await page.getByTestId('search-regex').click();
  await input.fill(`^${first.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  await idle(page);
  await expect(count).toHaveText(sameName === 1 ? '1 match' : `${sameName} matches`);
  await input.press('Enter');
  await idle(page);
  await expect(count).toHaveText(`1 of ${sameName}`);

  // An invalid expression says so beside the box; nothing throws.
  await input.fill('memcpy(');
  await idle(page);
  await expect(page.getByTestId('search-error')).toContainText('not a regular expression');
  await expect(page.getByTestId('search-next')).toBeDisabled();
  // The same text without the toggle is a plain substring again.
  await page.getByTestId('search-regex').click();
  await idle(page);
  await expect(page.getByTestId('search-error')).toHaveCount(0);
  expect(errors).toEqual([]);
});
