import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, idle, rendererStats, rows, test } from './fixtures.ts';

// Issue #21: a shaded sync gap has a tooltip (cause, duration, what the stream waited for) and
// selects on click, with the same in the details panel.
const recorded = fileURLToPath(new URL('../fixtures/runs/overlap-blog.sstrace', import.meta.url));

interface ListedGap {
  readonly track: number;
  readonly fromNs: number;
  readonly toNs: number;
  readonly cause: string;
  readonly causeOp: number;
}

test('a gap shows its cause and what it waited for, and selects on click', async ({
  page,
  request,
}) => {
  const uploaded = await request.put('/api/imports?filename=overlap-blog.sstrace', {
    data: await readFile(recorded),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  const { id } = (await uploaded.json()) as { id: string };
  const analysis = (await (await request.get(`/api/traces/${id}/analysis`)).json()) as {
    gaps: { stream: { listed: ListedGap[] } };
  };
  // The longest stream gap that analysis explains with an op.
  const gap = analysis.gaps.stream.listed
    .filter((g) => g.track >= 0 && g.causeOp >= 0)
    .sort((a, b) => b.toNs - b.fromNs - (a.toNs - a.fromNs))[0]!;
  expect(gap).toBeDefined();
  await page.goto(`/#/trace/${id}?t=${gap.fromNs - 1000},${gap.toNs + 1000}`);
  await idle(page);
  const stats = (await rendererStats(page, 'timeline'))!;
  const row = (await rows(page)).find((r) => r.kind === 'track' && r.track === gap.track)!;
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const midNs = (gap.fromNs + gap.toNs) / 2;
  const x =
    box.x +
    200 +
    ((midNs - stats.viewStartNs) / (stats.viewEndNs - stats.viewStartNs)) * (box.width - 200);
  const y = box.y + row.topPx + row.heightPx / 2;

  await page.mouse.move(x, y);
  const tooltip = page.getByTestId('gap-tooltip');
  await expect(tooltip).toBeVisible();
  await expect(tooltip).toContainText('Gap:');
  await expect(tooltip).toContainText('idle on');
  await expect(tooltip).toContainText('waited for');

  await page.mouse.click(x, y);
  await idle(page);
  await expect(page.getByTestId('gap-cause')).toHaveText(gap.cause);
  await expect(page.getByTestId('details-duration')).toHaveText(/\d (ns|µs|ms|s)$/);
  // The op it waited for is a link that goes there and selects it.
  await page.getByTestId('gap-waited-for').getByRole('button').click();
  await idle(page);
  await expect(page.getByTestId('details-kind')).toBeVisible();
  await request.delete(`/api/traces/${id}`);
});
