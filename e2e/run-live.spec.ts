import { expect, idle, rendererStats, test } from './fixtures.ts';
import { recordLiveOps, seenLiveOps } from './interaction-helpers.ts';

test('a preset run on the simulator fills the Gantt live, then lists and opens its trace', async ({
  page,
}) => {
  await page.goto('/#/run');
  await idle(page);
  await page.getByTestId('preset-select').selectOption('pipeline');
  // Eight 125 ms kernels on one stream at real-time pace (kernelUs is the total over all
  // chunks): they end 125 ms apart over a second, so their ops reach the browser in at least
  // eight separate live frames.
  await page.locator('#param-kernelUs').fill('1000000');
  await page.locator('#param-chunks').fill('8');
  await page.locator('#param-streams').fill('1');
  await page.getByTestId('backend-select').selectOption('sim');

  // Record every op count the live timeline has drawn, frame by frame.
  await recordLiveOps(page);
  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'finished', {
    timeout: 30_000,
  });
  await idle(page);

  const seen = await seenLiveOps(page);
  const final = await rendererStats(page, 'live-timeline');
  expect(final?.drawnOps).toBeGreaterThan(0);
  // The Gantt grew in steps while the run went on, not in one piece at the end.
  const partial = seen.filter((n) => n > 0 && n < final!.traceOps);
  expect(partial.length).toBeGreaterThanOrEqual(2);
  expect(seen.at(-1)).toBe(final!.traceOps);

  // The finished run is listed with the same op count the timeline holds, and opens.
  await page.goto('/#/traces');
  await idle(page);
  const row = page.getByTestId('trace-row').first();
  await expect(row).toHaveAttribute('data-status', 'finished');
  await expect(row.getByTestId('trace-op-count')).toHaveText(
    final!.traceOps.toLocaleString('en-US'),
  );
  await row.getByTestId('open-trace').click();
  await idle(page);
  const opened = await rendererStats(page, 'timeline');
  expect(opened?.traceOps).toBe(final!.traceOps);
  expect(opened?.drawnOps).toBeGreaterThan(0);
});

test('a running run is in the queue, and Cancel ends it keeping what arrived', async ({ page }) => {
  await page.goto('/#/run');
  await idle(page);
  // Forty 150 ms kernels on one stream at real-time pace: six seconds, ample time to cancel.
  const workload = {
    name: 'forty long kernels',
    streams: [{ name: 's', count: 1, type: 'non-blocking' }],
    threads: [
      {
        name: 'main',
        ops: [
          {
            op: 'repeat',
            count: 40,
            ops: [{ op: 'kernel', name: 'long[{i}]', duration: '150ms', stream: 's[0]' }],
          },
          { op: 'deviceSync' },
        ],
      },
    ],
  };
  await page.getByTestId('mode-workload').click();
  await page.getByTestId('workload-editor').fill(JSON.stringify(workload, null, 2));
  await expect(page.getByTestId('workload-validity')).toHaveText('valid');
  await page.getByTestId('backend-select').selectOption('sim');
  await page.getByTestId('run-button').click();

  // Some ops have arrived while the run goes on (no idle wait: a live run keeps the app busy).
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'running');
  await expect
    .poll(async () => (await rendererStats(page, 'live-timeline'))?.traceOps ?? 0)
    .toBeGreaterThan(0);
  const item = page.getByTestId('queue-item');
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('forty long kernels');
  await expect(item).toContainText('running');

  await page.getByTestId('cancel-run').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'cancelled');
  await idle(page);
  await expect(page.getByTestId('queue-item')).toHaveCount(0);
  const kept = (await rendererStats(page, 'live-timeline'))!.traceOps;
  expect(kept).toBeGreaterThan(0);

  // The cancelled run is stored with the ops it received, and opens.
  await page.goto('/#/traces');
  await idle(page);
  const row = page.locator('[data-testid=trace-row][data-status=cancelled]').first();
  await expect(row).toContainText('forty long kernels');
  await expect(row.getByTestId('trace-op-count')).toHaveText(kept.toLocaleString('en-US'));
  await row.getByTestId('open-trace').click();
  await idle(page);
  expect((await rendererStats(page, 'timeline'))?.traceOps).toBe(kept);
});
