import { expect, idle, rendererStats, test } from './fixtures.ts';
import type { OpProbe } from './interaction-helpers.ts';
import { probeOps, selection, uploadRun } from './interaction-helpers.ts';

// Issue #21: Ctrl/Cmd-click adds ops to the selection or takes them out; the details panel sums
// the set (count, durations, by kind, by stream, copy bytes and bandwidth); Escape clears it.
test('ctrl-click builds a selection whose aggregates the details panel shows', async ({
  page,
  request,
}) => {
  const id = await uploadRun(request, 'over-sync.sstrace');
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const stats = (await rendererStats(page, 'timeline'))!;
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const byStart = (
    await probeOps(
      page,
      Array.from({ length: stats.traceOps }, (_, i) => i),
    )
  ).sort((a, b) => a.startNs - b.startNs);
  // The first copy and the two kernels after it, shown large through the link's window.
  const firstCopy = byStart.find((o) => o.kind.startsWith('copy-'))!;
  const after = byStart.filter((o) => o.kind === 'kernel' && o.startNs >= firstCopy.endNs);
  expect(firstCopy).toBeDefined();
  expect(after.length).toBeGreaterThanOrEqual(2);
  const fromNs = firstCopy.startNs;
  const toNs = after[1]!.endNs;
  const padNs = (toNs - fromNs) * 0.05;
  await page.evaluate(
    ([trace, a, b]) => {
      location.hash = `#/trace/${trace}?t=${a},${b}`;
    },
    [id, String(Math.round(fromNs - padNs)), String(Math.round(toNs + padNs))] as const,
  );
  await idle(page);
  const [copy, ...kernels] = await probeOps(page, [firstCopy.op, after[0]!.op, after[1]!.op]);
  expect(copy!.yPx).toBeLessThan(box.height);
  const [k1, k2] = kernels;
  const click = (o: OpProbe) => page.mouse.click(box.x + o.xPx, box.y + o.yPx);
  const clickWith = async (o: OpProbe, key: 'Control' | 'Meta') => {
    await page.keyboard.down(key);
    await page.mouse.click(box.x + o.xPx, box.y + o.yPx);
    await page.keyboard.up(key);
    await idle(page);
  };

  await click(copy!);
  await idle(page);
  await expect(page.getByTestId('details-name')).toHaveText(copy!.name);
  await clickWith(k1!, 'Control');
  await clickWith(k2!, 'Meta');
  await expect(page.getByTestId('set-count')).toHaveText('3');
  const chosen = [copy!, k1!, k2!];
  expect([...(await selection(page)).opSet].sort((a, b) => a - b)).toEqual(
    chosen.map((o) => o.op).sort((a, b) => a - b),
  );
  // One row per stream and per kind of the three; the copy's bytes and bandwidth.
  const streams = new Set(chosen.map((o) => o.track)).size;
  await expect(page.getByTestId('set-by-stream').locator('tbody tr')).toHaveCount(streams);
  await expect(page.getByTestId('set-by-kind').locator('tbody tr')).not.toHaveCount(0);
  await expect(page.getByTestId('set-copies')).toContainText(/^1: .* at [\d.]+ GB\/s/);
  await expect(page.getByTestId('set-mean-min-max')).toHaveText(/ \/ .* \/ /);

  // Ctrl-click on a member takes it out again.
  await clickWith(k1!, 'Control');
  await expect(page.getByTestId('set-count')).toHaveText('2');
  expect((await selection(page)).opSet).not.toContain(k1!.op);

  await page.keyboard.press('Escape');
  await idle(page);
  await expect(page.getByTestId('selection-set')).toHaveCount(0);
  expect(await selection(page)).toMatchObject({ selectedOp: null, opSet: [] });
});
