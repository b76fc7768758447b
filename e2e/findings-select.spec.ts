import { expect, idle, rendererStats, rows, test } from './fixtures.ts';
import { probeOps, selection, uploadRun } from './interaction-helpers.ts';

// Issue #21: a finding's "show (N ops)" selects all N: the view fits them and stays inside the
// trace, and next/previous (buttons and ] / [) step through them in time order, "k of N".
test("a finding's ops are all selected, fitted and stepped through in time order", async ({
  page,
  request,
}) => {
  // over-sync: the missed-overlap rule names the 16 copies that could overlap compute.
  const id = await uploadRun(request, 'over-sync.sstrace');
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const finding = page.locator('[data-testid="finding"][data-rule="missed-overlap"]');
  await expect(finding.getByTestId('finding-show')).toHaveText('show (16 ops)');
  await finding.getByTestId('finding-show').click();
  await idle(page);

  await expect(page.getByTestId('set-count')).toHaveText('16');
  await expect(page.getByTestId('set-position')).toHaveText('1 of 16');
  const picked = await selection(page);
  expect(picked.opSet).toHaveLength(16);
  const ops = await probeOps(page, picked.opSet);
  // In time order, the first one current.
  const starts = ops.map((o) => o.startNs);
  expect(starts).toEqual([...starts].sort((a, b) => a - b));
  expect(picked.selectedOp).toBe(picked.opSet[0]);

  // The view shows every one of them, and nothing before 0 or past the trace's end.
  const stats = (await rendererStats(page, 'timeline'))!;
  expect(stats.viewStartNs).toBeGreaterThanOrEqual(0);
  expect(stats.viewEndNs).toBeLessThanOrEqual(picked.traceSpanNs);
  for (const op of ops) {
    expect(op.startNs).toBeGreaterThanOrEqual(stats.viewStartNs);
    expect(op.endNs).toBeLessThanOrEqual(stats.viewEndNs);
  }

  // ] steps forward, the buttons both ways, wrapping at the ends.
  await page.keyboard.press(']');
  await idle(page);
  await expect(page.getByTestId('set-position')).toHaveText('2 of 16');
  expect((await selection(page)).selectedOp).toBe(picked.opSet[1]);
  await page.getByTestId('set-prev').click();
  await page.getByTestId('set-prev').click();
  await idle(page);
  await expect(page.getByTestId('set-position')).toHaveText('16 of 16');
  expect((await selection(page)).selectedOp).toBe(picked.opSet[15]);
  await page.keyboard.press('[');
  await idle(page);
  await expect(page.getByTestId('set-position')).toHaveText('15 of 16');
  // Stepping keeps the view inside the trace too.
  const after = (await rendererStats(page, 'timeline'))!;
  expect(after.viewStartNs).toBeGreaterThanOrEqual(0);
  expect(after.viewEndNs).toBeLessThanOrEqual(picked.traceSpanNs);

  // The ? overlay says which keys step.
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcut-help')).toContainText('] / [');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await idle(page);
  expect((await selection(page)).opSet).toEqual([]);
});

// Issue #21: streams are in one order on the canvas, in the Streams panel and in the Summary.
test('the canvas, the Streams panel and the Summary list streams in one order', async ({
  page,
  request,
}) => {
  const id = await uploadRun(request, 'overlap-blog.sstrace');
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const canvas = (await rows(page)).filter((r) => r.kind === 'track').map((r) => r.track);
  const panel: number[] = [];
  for (const item of await page.getByTestId('stream-item').all()) {
    panel.push(Number(await item.getAttribute('data-track')));
  }
  const summary: number[] = [];
  for (const tr of await page.getByTestId('summary-streams').locator('tr').all()) {
    summary.push(Number(await tr.getAttribute('data-track')));
  }
  expect(canvas.length).toBeGreaterThan(1);
  expect(panel).toEqual(canvas);
  expect(summary.length).toBeGreaterThan(1);
  expect(summary).toEqual(canvas.filter((t) => summary.includes(t)));
});
