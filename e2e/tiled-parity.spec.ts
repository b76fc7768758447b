import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, idle, rendererStats, rows, test } from './fixtures.ts';
import { probeOps, selection } from './interaction-helpers.ts';

// The fresh-user review of session 7: tiled mode (`?tiles=1`) and the normal view must agree on
// what a finding's "show" does at fit-all (the op comes out visible, selected, inside the trace)
// and on the labels of host-range rows; Low GPU utilization shows the ops around its largest
// idle gap. The recorded kineto trace: 28 ms, copies of 12.5 µs, CPU ops and annotations.
const train = fileURLToPath(new URL('../fixtures/kineto/train.pt.trace.json.gz', import.meta.url));
/** The timeline's row labels column, CSS px (the renderer's default gutter). */
const gutterPx = 200;

async function upload(request: APIRequestContext): Promise<string> {
  const uploaded = await request.put('/api/imports?filename=train.pt.trace.json.gz', {
    data: await readFile(train),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  return ((await uploaded.json()) as { id: string }).id;
}

/** Opens the trace at fit-all, or at the window `t` ("startNs,endNs") when given. */
async function open(page: Page, id: string, tiled: boolean, t?: string): Promise<void> {
  const route = `#/trace/${id}${t === undefined ? '' : `?t=${t}`}`;
  await page.goto(tiled ? `/?tiles=1${route}` : `/${route}`);
  await idle(page);
  if (tiled) {
    await expect(page.getByTestId('timeline-tiled-note')).toBeVisible();
  }
  if (t === undefined) {
    await page.getByTestId('fit-all').click();
    await idle(page);
  }
}

/** The range rows: which track, the label, how tall. */
async function rangeRows(page: Page): Promise<[number, string, number][]> {
  return (await rows(page))
    .filter((r) => r.kind === 'nvtx')
    .map((r) => [r.track, r.label, r.heightPx]);
}

interface Shown {
  readonly viewStartNs: number;
  readonly viewEndNs: number;
  readonly selectedStartNs: number;
  readonly selectedWidthPx: number;
}

/** Clicks a finding's show and reads the view and the selected op. */
async function show(page: Page, ruleId: string): Promise<Shown> {
  const finding = page.locator(`[data-testid="finding"][data-rule="${ruleId}"]`);
  await finding.getByTestId('finding-show').click();
  await idle(page);
  const stats = (await rendererStats(page, 'timeline'))!;
  const picked = await selection(page);
  expect(picked.selectedOp).not.toBeNull();
  const [op] = await probeOps(page, [picked.selectedOp!]);
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const nsPerPx = (stats.viewEndNs - stats.viewStartNs) / (box.width - gutterPx);
  return {
    viewStartNs: stats.viewStartNs,
    viewEndNs: stats.viewEndNs,
    selectedStartNs: op!.startNs,
    selectedWidthPx: (op!.endNs - op!.startNs) / nsPerPx,
  };
}

test('host-range rows read the same in tiled mode as in the normal view', async ({
  page,
  request,
}) => {
  const id = await upload(request);
  // 14.0–14.3 ms of the 28 ms: tiled mode holds the ranges of about this window only, and in it
  // thread 853 has CPU ops but no user annotation, and thread 891 no range at all.
  const t = '13975000,14254000';
  await open(page, id, false, t);
  const normal = await rangeRows(page);
  expect(normal.map(([, label]) => label)).toEqual(['CPU ops + user annotations', 'CPU ops']);
  await open(page, id, true, t);
  expect((await rendererStats(page, 'timeline'))!.viewStartNs).toBeCloseTo(13_975_000, -1);
  expect(await rangeRows(page)).toEqual(normal);
  await request.delete(`/api/traces/${id}`);
});

test("a finding's show at fit-all zooms the same way in both modes, the op visible", async ({
  page,
  request,
}) => {
  const id = await upload(request);
  const meta = (await (await request.get(`/api/traces/${id}/tiles/meta`)).json()) as {
    spanNs: number;
  };
  const seen: Shown[] = [];
  for (const tiled of [false, true]) {
    await open(page, id, tiled);
    // Three 12.5 µs pageable copies 7 ms apart: at fit-all each is under a px.
    const shown = await show(page, 'pageable-copy');
    expect(shown.selectedWidthPx).toBeGreaterThanOrEqual(3);
    expect(shown.viewStartNs).toBeGreaterThanOrEqual(0);
    expect(shown.viewEndNs).toBeLessThanOrEqual(meta.spanNs);
    expect(shown.selectedStartNs).toBeGreaterThanOrEqual(shown.viewStartNs);
    seen.push(shown);
  }
  // One rule in both modes: the same op selected, the same window.
  expect(seen[1]!.selectedStartNs).toBe(seen[0]!.selectedStartNs);
  expect(Math.abs(seen[1]!.viewStartNs - seen[0]!.viewStartNs)).toBeLessThan(1);
  expect(Math.abs(seen[1]!.viewEndNs - seen[0]!.viewEndNs)).toBeLessThan(1);
  await request.delete(`/api/traces/${id}`);
});

test('Low GPU utilization shows the GPU ops on either side of its largest idle gap', async ({
  page,
  request,
}) => {
  const id = await upload(request);
  await open(page, id, false);
  const finding = page.locator('[data-testid="finding"][data-rule="low-utilization"]');
  await expect(finding).toContainText('Largest idle gap inside them');
  await expect(finding.getByTestId('finding-show')).toHaveText('show (2 ops)');
  await finding.getByTestId('finding-show').click();
  await idle(page);
  await expect(page.getByTestId('set-count')).toHaveText('2');
  const [before, after] = await probeOps(page, (await selection(page)).opSet);
  // The largest GPU idle gap of the analysis lies between them, and nothing runs inside it.
  const analysis = (await (await request.get(`/api/traces/${id}/analysis`)).json()) as {
    gaps: { device: { listed: { fromNs: number; toNs: number; durNs: number }[] } };
  };
  const largest = [...analysis.gaps.device.listed].sort((x, y) => y.durNs - x.durNs)[0]!;
  expect(before!.endNs).toBe(largest.fromNs);
  expect(after!.startNs).toBe(largest.toNs);
  await request.delete(`/api/traces/${id}`);
});
