import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeBigKinetoTrace } from './big-kineto-trace.ts';
import type { RendererStats } from './fixtures.ts';
import { expect, idle, rendererStats, rows, test } from './fixtures.ts';

// Issue #22: a stored trace opened in tiled mode (`?tiles=1` forces it below the 2M-op
// threshold) shows its rows from the server's tiles while the page holds only a window; zoomed
// in, the exact ops of the window arrive, one is clicked for its details; search covers the
// whole trace through the server.

type TiledStats = RendererStats & { readonly fromTiles?: boolean };

const kernels = 150_000; // 300,000 ops: launches on a host thread, kernels over two streams

async function stats(page: Parameters<typeof idle>[0]): Promise<TiledStats> {
  const s = await rendererStats(page, 'timeline');
  if (s === undefined) {
    throw new Error('no renderer stats for the timeline');
  }
  return s;
}

test('a stored trace in tiled mode: tiles, exact ops when zoomed in, details, search', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const file = path.join(tmpdir(), `streamscope-tiles-${process.pid}.pt.trace.json`);
  await writeBigKinetoTrace(file, kernels);
  const uploaded = await request.put('/api/imports?filename=tiles.pt.trace.json', {
    data: await readFile(file),
    headers: { 'content-type': 'application/octet-stream' },
    timeout: 120_000,
  });
  await rm(file, { force: true });
  expect(uploaded.status()).toBe(201);
  const entry = (await uploaded.json()) as { id: string; opCount: number };
  expect(entry.opCount).toBe(2 * kernels);

  await page.goto(`/?tiles=1#/trace/${entry.id}`);
  await idle(page);
  await expect(page.getByTestId('timeline-tiled-note')).toBeVisible();
  // The analysis panel says where the whole trace's findings are, not "Analysing…" forever.
  await expect(page.getByTestId('analysis-tiled')).toContainText('streamscope analyze');
  await expect(page.getByTestId('trace-op-total')).toHaveText(/300,000|300 000|300000/);
  // Fit all: the whole trace from tiles; the page holds a skeleton, not the 300,000 ops.
  await page.getByTestId('fit-all').click();
  await idle(page);
  const whole = await stats(page);
  expect(whole.fromTiles).toBe(true);
  expect(whole.traceOps).toBeLessThan(1000);
  // Nearly every op is in a drawn bucket (the host thread's launches and the streams' kernels).
  expect(whole.drawnOps).toBeGreaterThan(0.9 * 2 * kernels);
  const streamRows = (await rows(page)).filter((r) => r.kind === 'track');
  expect(streamRows.length).toBeGreaterThanOrEqual(3);

  // Zoom in about the middle until the window's exact ops have arrived.
  const canvas = page.getByTestId('timeline');
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  let zoomed = whole;
  for (let i = 0; i < 40 && zoomed.fromTiles !== false; i++) {
    await page.mouse.wheel(0, -400);
    await idle(page);
    zoomed = await stats(page);
  }
  expect(zoomed.fromTiles).toBe(false);
  expect(zoomed.traceOps).toBeGreaterThan(0);
  expect(zoomed.traceOps).toBeLessThanOrEqual(200_000);
  expect(zoomed.drawnOps).toBeGreaterThan(0);

  // Search the whole trace: kernel_7 is every 50th kernel.
  await page.getByTestId('search-input').fill('kernel_7');
  await page.getByTestId('search-input').press('Enter');
  await idle(page);
  await expect(page.getByTestId('search-count')).toHaveText(
    `1 of ${(kernels / 50).toLocaleString('en-US')}`,
  );
  // The first match is selected once its window is here, and its details show.
  await expect(page.getByTestId('details-name')).toHaveText('kernel_7');
  await page.getByTestId('search-next').click();
  await idle(page);
  await expect(page.getByTestId('search-count')).toHaveText(
    `2 of ${(kernels / 50).toLocaleString('en-US')}`,
  );
  await expect(page.getByTestId('details-name')).toHaveText('kernel_7');
  const atMatch = await stats(page);
  expect(atMatch.fromTiles).toBe(false);

  // Clear the selection and click the op in the middle of the view: its details come back.
  await page.keyboard.press('Escape');
  await idle(page);
  await expect(page.getByTestId('details-name')).toHaveCount(0);
  const middleX = box.x + 200 + (box.width - 200) / 2;
  for (const row of (await rows(page)).filter((r) => r.kind === 'track')) {
    await page.mouse.click(middleX, box.y + row.topPx + row.heightPx / 2);
    await idle(page);
    if ((await page.getByTestId('details-name').count()) > 0) {
      break;
    }
  }
  await expect(page.getByTestId('details-name')).toHaveText('kernel_7');
  await request.delete(`/api/traces/${entry.id}`);
});
