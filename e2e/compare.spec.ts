import type { APIRequestContext } from '@playwright/test';
import { expect, idle, test } from './fixtures.ts';

/** The pipeline lesson's workload with `chunks` chunks, run on the simulator. */
async function pipelineRun(
  request: APIRequestContext,
  chunks: number,
): Promise<{ id: string; title: string }> {
  const started = await request.post('/api/runs', {
    data: { preset: 'pipeline', params: { chunks }, backend: 'sim', target: 'c1060', pace: 'fast' },
  });
  expect(started.status()).toBe(202);
  const { id } = (await started.json()) as { id: string };
  await expect
    .poll(
      async () =>
        ((await (await request.get(`/api/traces/${id}`)).json()) as { status: string }).status,
    )
    .toBe('finished');
  const { title } = (await (await request.get(`/api/traces/${id}`)).json()) as { title: string };
  return { id, title };
}

// Issue #21: compare titles each side as the run list does, labels its columns with units, keeps
// them together, and never prints a percentage of a tiny baseline. ("1 chunk" in the workload's
// own name is checked in packages/workload's presets test.)
test('the compare table: units, aligned values, no runaway percentages, plurals', async ({
  page,
  request,
}) => {
  const a = await pipelineRun(request, 1);
  const b = await pipelineRun(request, 2);
  expect(a.title).toContain('chunks 1');
  expect(b.title).toContain('chunks 2');
  await page.goto(`/#/compare?a=${a.id}&b=${b.id}`);
  await idle(page);
  await expect(page.getByText(`A: ${a.title}`, { exact: true })).toBeVisible();
  await expect(page.getByText(`B: ${b.title}`, { exact: true })).toBeVisible();

  const table = page.getByTestId('compare-metrics');
  await expect(table.locator('thead th')).toHaveText(['Metric', 'Unit', 'A', 'B', 'B vs A']);
  const rows: string[][] = [];
  for (const row of await table.locator('tbody tr').all()) {
    rows.push(await row.locator('td').allTextContents());
  }
  expect(rows.length).toBeGreaterThan(5);
  for (const [name = '', unit = '', va = '', vb = '', change = ''] of rows) {
    expect(unit, name).toMatch(/^(ns|µs|ms|s|%|count)$/);
    // Values are bare numbers in that unit, with the same decimals on both sides.
    expect(va, name).toMatch(/^[\d,]+(\.\d+)?$|^—$/);
    expect((va.split('.')[1] ?? '').length, name).toBe((vb.split('.')[1] ?? '').length);
    // A change is a percentage under four digits, points, a count, a ratio or n/a.
    expect(change, name).toMatch(
      /^([+-][\d,]{1,3}\.\d%|±0%?|[+-]\d+(\.\d pt)?|[\d.,]+× A.*|n\/a.*|[+-][\d.]+ pt)$/,
    );
  }
  // The columns sit together instead of spreading over the page.
  const tableBox = (await table.boundingBox())!;
  const pageWidth = page.viewportSize()!.width;
  expect(tableBox.width).toBeLessThan(pageWidth * 0.6);
});
