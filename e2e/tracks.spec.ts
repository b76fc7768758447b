import type { Page } from '@playwright/test';
import { expect, idle, rows, test } from './fixtures.ts';
import { kinetoTrace } from './export-trace.ts';

// Issue #21 (host ranges projected onto the GPU) and #18 (the launch queue depth as a counter
// track): both under each stream, off by default, turned on in the toolbar's Tracks menu and
// kept in the link. The trace: 'forward' launches kernels at 10 and 20 µs (they start at 30 and
// 640 µs), 'backward' at 1010 and 1020 µs (they start at 1150 and 1960 µs).
const windowNs = 2_260_000;

async function hoverAt(page: Page, timeNs: number, row: { topPx: number; heightPx: number }) {
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const xPx = 200 + (timeNs / windowNs) * (box.width - 200);
  await page.mouse.move(box.x + xPx, box.y + row.topPx + row.heightPx / 2);
  await idle(page);
}

test('the Tracks menu adds launch ranges and queue depth under each stream', async ({
  page,
  request,
}) => {
  const uploaded = await request.put('/api/imports?filename=tracks.pt.trace.json', {
    data: kinetoTrace(),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  const { id } = (await uploaded.json()) as { id: string };
  await page.goto(`/#/trace/${id}?t=0,${windowNs}`);
  await idle(page);
  const kinds = async () => (await rows(page)).map((r) => r.kind);
  expect(await kinds()).not.toContain('launch');
  expect(await kinds()).not.toContain('queue');

  await page.getByTestId('tracks-menu-button').click();
  await page.getByTestId('track-lanes-launch').check();
  await idle(page);
  let all = await rows(page);
  const stream = all.findIndex((r) => r.kind === 'track' && r.label === 'Stream 7');
  expect(all[stream + 1]).toMatchObject({ kind: 'launch', label: 'Launched from' });
  expect(page.url()).toContain('lanes=launch');
  // Over the first kernel the lane names 'forward'; over the third, 'backward'.
  await hoverAt(page, 300_000, all[stream + 1]!);
  await expect(page.getByTestId('lane-tooltip-value')).toHaveText('forward');
  await hoverAt(page, 1_500_000, all[stream + 1]!);
  await expect(page.getByTestId('lane-tooltip-value')).toHaveText('backward');

  await page.getByTestId('track-lanes-queue').check();
  await idle(page);
  all = await rows(page);
  const queue = all[stream + 2]!;
  expect(queue).toMatchObject({ kind: 'queue', label: 'Queue depth (log)' });
  // Two launches in flight at 25 µs, one at 300 µs, none at 800 µs.
  await hoverAt(page, 25_000, queue);
  await expect(page.getByTestId('lane-tooltip-value')).toHaveText('queue depth 2 of 1024');
  await hoverAt(page, 300_000, queue);
  await expect(page.getByTestId('lane-tooltip-value')).toHaveText('queue depth 1 of 1024');
  await hoverAt(page, 800_000, queue);
  await expect(page.getByTestId('lane-tooltip-value')).toHaveText('queue depth 0 of 1024');
  expect(page.url()).toMatch(/lanes=launch,queue/);

  // The link reopens both rows.
  await page.reload();
  await idle(page);
  expect(await kinds()).toContain('launch');
  expect(await kinds()).toContain('queue');
  await request.delete(`/api/traces/${id}`);
});
