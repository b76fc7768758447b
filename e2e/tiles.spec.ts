import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeBigKinetoTrace } from './big-kineto-trace.ts';
import type { RendererStats } from './fixtures.ts';
import { expect, idle, rendererStats, rows, test } from './fixtures.ts';
import { probeOps, selection, uploadRun } from './interaction-helpers.ts';

// Issue #22: a stored trace opened in tiled mode (`?tiles=1` forces it below the 2M-op
// threshold) shows its rows from the server's tiles while the page holds only a window; zoomed
// in, the exact ops of the window arrive, one is clicked for its details and its flow; search,
// area aggregates and the analysis cover the whole trace through the server.

type TiledStats = RendererStats & {
  readonly fromTiles?: boolean;
  readonly searchMarks?: number;
  readonly gaps?: number;
  readonly selectionFlows?: number;
};

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
  await expect(page.getByTestId('timeline-tiled-note')).not.toContainText('Not yet');
  // The analysis panel shows the server's analysis of the whole trace.
  await expect(page.getByTestId('analysis-tiled')).toHaveCount(0);
  await expect(page.getByTestId('metric-makespan')).toBeVisible();
  const streamsInSummary = page.getByTestId('summary-streams').locator('tr');
  await expect(streamsInSummary).toHaveCount(2);
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
  // Zoomed out, gaps are not drawn over tiles.
  expect(whole.gaps ?? 0).toBe(0);

  // Typing a search marks where its matches are over the tiles, from the server's buckets.
  await page.getByTestId('search-input').fill('kernel_7');
  await idle(page);
  await expect(page.getByTestId('search-count')).toHaveText(
    `${(kernels / 50).toLocaleString('en-US')} matches`,
  );
  const marked = await stats(page);
  expect(marked.fromTiles).toBe(true);
  // Every kernel_7 is on stream 8 (kernel i runs on stream 7 + i % 2), one every 100 µs: the
  // buckets (span / 4096, about 73 µs) of matches touch on screen, one strip along that row.
  expect(marked.searchMarks).toBe(1);
  await page.getByTestId('search-input').fill('');
  await idle(page);
  expect((await stats(page)).searchMarks).toBe(0);

  // Shift-drag over (nearly) the whole trace: the area table counts the whole trace's ops on the
  // server, though the page holds a skeleton; every kernel name and the launches are a row.
  const canvasBox = (await page.getByTestId('timeline').boundingBox())!;
  await page.keyboard.down('Shift');
  await page.mouse.move(canvasBox.x + 205, canvasBox.y + 35);
  await page.mouse.down();
  await page.mouse.move(canvasBox.x + canvasBox.width - 5, canvasBox.y + canvasBox.height - 5, {
    steps: 8,
  });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await idle(page);
  await expect(page.getByTestId('area-table')).toBeVisible();
  await expect(page.getByTestId('area-row')).toHaveCount(51);
  const areaCount = Number((await page.getByTestId('area-count').innerText()).replace(/\D/g, ''));
  expect(areaCount).toBeGreaterThan(0.9 * 2 * kernels);
  expect(areaCount).toBeLessThanOrEqual(2 * kernels);
  // Per track: the host thread's launches and the two streams, each with its busy time.
  await expect(page.getByTestId('area-track-row')).toHaveCount(3);
  expect((await stats(page)).traceOps).toBeLessThan(1000);
  await page.getByTestId('area-panel').getByRole('button', { name: 'Clear' }).click();
  await idle(page);
  await expect(page.getByTestId('area-table')).toHaveCount(0);

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
  // The selected kernel's flow from its cudaLaunchKernel came from the server and is drawn.
  await expect(page.getByTestId('details-flows')).toContainText('cudaLaunchKernel');
  expect(atMatch.selectionFlows).toBe(1);
  // Inside the window of exact ops the search marks its ops, not the server's buckets.
  expect(atMatch.searchMarks).toBe(0);

  // The server's gaps are drawn inside the window of exact ops.
  expect(atMatch.gaps ?? 0).toBeGreaterThan(0);

  // Clear the selection and click the op in the middle of the view: its details come back. Down
  // the rows, a click where a row has no op selects the gap there (as in the normal view); the
  // click on kernel_7 selects kernel_7, not a gap.
  await page.keyboard.press('Escape');
  await idle(page);
  await expect(page.getByTestId('details-name')).toHaveCount(0);
  const middleX = box.x + 200 + (box.width - 200) / 2;
  for (const row of (await rows(page)).filter((r) => r.kind === 'track')) {
    await page.mouse.click(middleX, box.y + row.topPx + row.heightPx / 2);
    await idle(page);
    const name = page.getByTestId('details-name');
    if ((await name.count()) > 0 && !(await name.innerText()).startsWith('Gap')) {
      break;
    }
  }
  await expect(page.getByTestId('details-name')).toHaveText('kernel_7');
  await request.delete(`/api/traces/${entry.id}`);
});

test("tiled mode: the server's findings, and a finding's show selects its ops in a window", async ({
  page,
  request,
}) => {
  // over-sync: the missed-overlap rule names the 16 copies that could overlap compute.
  const id = await uploadRun(request, 'over-sync.sstrace');
  await page.goto(`/?tiles=1#/trace/${id}`);
  await idle(page);
  await expect(page.getByTestId('timeline-tiled-note')).toBeVisible();
  const finding = page.locator('[data-testid="finding"][data-rule="missed-overlap"]');
  await expect(finding.getByTestId('finding-show')).toHaveText('show (16 ops)');
  await finding.getByTestId('finding-show').click();
  await idle(page);
  // The 16 ops were looked up on the server, the view went there, and once the window of exact
  // ops arrived they were selected as one set, the first current.
  await expect(page.getByTestId('set-count')).toHaveText('16');
  await expect(page.getByTestId('set-position')).toHaveText('1 of 16');
  // They are the finding's ops: the same starts as the server's ops of those indices.
  const analysis = (await (await request.get(`/api/traces/${id}/analysis`)).json()) as {
    findings: { ruleId: string; opIndices: number[] }[];
  };
  const named = analysis.findings.find((f) => f.ruleId === 'missed-overlap')!.opIndices;
  const serverStarts: number[] = [];
  for (const index of named) {
    const op = (await (await request.get(`/api/traces/${id}/ops/${index}`)).json()) as {
      startNs: number;
    };
    serverStarts.push(op.startNs);
  }
  const picked = await selection(page);
  const inWindow = await probeOps(page, picked.opSet);
  expect(inWindow.map((o) => o.startNs)).toEqual(serverStarts.sort((a, b) => a - b));
  expect(inWindow.every((o) => o.kind.startsWith('copy'))).toBe(true);
  expect(picked.selectedOp).toBe(picked.opSet[0]);
  const s = await stats(page);
  expect(s.fromTiles).toBe(false);
  expect(s.gaps ?? 0).toBeGreaterThan(0);
  // The window fits them inside the trace, as the normal view's does: never before its start.
  const meta = (await (await request.get(`/api/traces/${id}/tiles/meta`)).json()) as {
    spanNs: number;
  };
  expect(s.viewStartNs).toBeGreaterThanOrEqual(0);
  expect(s.viewEndNs).toBeLessThanOrEqual(meta.spanNs);
  for (const o of inWindow) {
    expect(o.startNs).toBeGreaterThanOrEqual(s.viewStartNs);
    expect(o.endNs).toBeLessThanOrEqual(s.viewEndNs);
  }
  await request.delete(`/api/traces/${id}`);
});
