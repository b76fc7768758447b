import { expect, idle, rendererStats, test } from './fixtures.ts';
import { selection, uploadRun } from './interaction-helpers.ts';

// Issue #21: a change of the hash in the same tab (edited by hand, back/forward) moves the view
// and the selection.
test('editing the hash and going back move the view and the selection', async ({
  page,
  request,
}) => {
  const id = await uploadRun(request, 'over-sync.sstrace');
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const opened = (await rendererStats(page, 'timeline'))!;
  const urlBefore = page.url();
  const span = opened.viewEndNs - opened.viewStartNs;
  const startNs = Math.round(opened.viewStartNs + span / 4);
  const endNs = Math.round(opened.viewStartNs + span / 2);

  // As if typed into the address bar: a new history entry and a hashchange.
  await page.evaluate(
    ([trace, a, b]) => {
      location.hash = `#/trace/${trace}?t=${a},${b}&op=3`;
    },
    [id, String(startNs), String(endNs)] as const,
  );
  await idle(page);
  let stats = (await rendererStats(page, 'timeline'))!;
  expect(stats.viewStartNs).toBeCloseTo(startNs, 0);
  expect(stats.viewEndNs).toBeCloseTo(endNs, 0);
  expect((await selection(page)).selectedOp).toBe(3);
  await expect(page.getByTestId('details-name')).toBeVisible();

  // Back: the window and selection of the entry before.
  await page.goBack();
  await idle(page);
  expect(page.url()).toBe(urlBefore);
  stats = (await rendererStats(page, 'timeline'))!;
  expect(stats.viewStartNs).toBeCloseTo(opened.viewStartNs, -1);
  expect(stats.viewEndNs).toBeCloseTo(opened.viewEndNs, -1);
  expect((await selection(page)).selectedOp).toBeNull();

  // Forward again.
  await page.goForward();
  await idle(page);
  stats = (await rendererStats(page, 'timeline'))!;
  expect(stats.viewStartNs).toBeCloseTo(startNs, 0);
  expect((await selection(page)).selectedOp).toBe(3);
});
