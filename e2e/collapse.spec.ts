import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, idle, rows, test } from './fixtures.ts';

// Issue #21: processes, devices, host-thread groups and NVTX lanes fold when their header is
// clicked, with a count of what they hide; the folded state is in the URL and a link restores it.
const train = fileURLToPath(new URL('../fixtures/nsys/2025.3.1/train.json', import.meta.url));

/** Clicks the label of the first row whose label starts with `prefix`. */
async function clickHeader(page: Page, prefix: string): Promise<void> {
  const row = (await rows(page)).find((r) => r.label.startsWith(prefix));
  expect(row, `a row labelled ${prefix}…`).toBeDefined();
  const box = (await page.getByTestId('timeline').boundingBox())!;
  await page.mouse.click(box.x + 60, box.y + row!.topPx + row!.heightPx / 2);
  await idle(page);
}

test('device and NVTX headers fold and unfold, and a link keeps them folded', async ({
  page,
  request,
}) => {
  const uploaded = await request.put('/api/imports?filename=train.json', {
    data: await readFile(train),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  const { id } = (await uploaded.json()) as { id: string };
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const all = await rows(page);
  // train.json has one process: host threads first, then GPU 0 with every stream track.
  const gpuAt = all.findIndex((r) => r.kind === 'group' && r.label.startsWith('GPU 0'));
  const streams = all.slice(gpuAt).filter((r) => r.kind === 'track');
  expect(streams.length).toBeGreaterThan(1);

  // The device header folds its streams into one line that says how many.
  await clickHeader(page, 'GPU 0');
  let now = await rows(page);
  const device = now.find((r) => r.label.startsWith('GPU 0'))!;
  expect(now.slice(now.indexOf(device)).filter((r) => r.kind === 'track')).toHaveLength(0);
  expect(device.label).toContain(`· ${streams.length} streams hidden`);

  // The NVTX lanes of the host thread fold to one line with their range count.
  const nvtx = all.find((r) => r.kind === 'nvtx')!;
  expect(nvtx.label).toBe('NVTX');
  await clickHeader(page, 'NVTX');
  now = await rows(page);
  expect(now.filter((r) => r.kind === 'nvtx')).toHaveLength(0);
  expect(now.find((r) => r.label.startsWith('NVTX'))!.label).toMatch(/^NVTX · \d+ ranges? hidden$/);

  // Both are in the URL; the page loaded again from that link opens folded the same way.
  await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/fold=d\d+\.0,n\d+/);
  await page.reload();
  await idle(page);
  expect((await rows(page)).map((r) => r.label)).toEqual(now.map((r) => r.label));

  // A second click unfolds.
  await clickHeader(page, 'GPU 0');
  await clickHeader(page, 'NVTX');
  expect((await rows(page)).map((r) => r.label)).toEqual(all.map((r) => r.label));
  await expect.poll(() => page.evaluate(() => location.hash)).not.toContain('fold=');
  await request.delete(`/api/traces/${id}`);
});
