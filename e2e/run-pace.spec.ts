import { expect, idle, rendererStats, test } from './fixtures.ts';
import { recordLiveOps, seenLiveOps } from './interaction-helpers.ts';

// Issue #21 walk-through: at real time a preset's few simulated ms are over before the eye can
// follow. The Run page's Speed control passes a slowdown with realtime pacing to the server, and
// the same default preset then fills the Gantt over several frames (1000×: about ten seconds, so
// the frames do not depend on how the socket happens to batch a short run).

test('a run at "1000× slower" fills the Gantt live over several frames', async ({ page }) => {
  await page.goto('/#/run');
  await idle(page);
  await page.getByTestId('preset-select').selectOption('pipeline');
  await page.getByTestId('backend-select').selectOption('sim');
  await page.getByTestId('pace-select').selectOption({ label: '1000× slower' });

  // Record every op count the live timeline draws, frame by frame.
  await recordLiveOps(page);
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/runs') && r.method() === 'POST');
  await page.getByTestId('run-button').click();
  expect((await sent).postDataJSON()).toMatchObject({ pace: 'realtime', slowdown: 1000 });
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'finished', {
    timeout: 50_000,
  });
  await idle(page);

  const seen = await seenLiveOps(page);
  const final = await rendererStats(page, 'live-timeline');
  expect(final?.traceOps).toBeGreaterThan(0);
  const partial = seen.filter((n) => n > 0 && n < final!.traceOps);
  expect(partial.length).toBeGreaterThanOrEqual(2);
  expect(seen.at(-1)).toBe(final!.traceOps);
});
