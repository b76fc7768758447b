import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, idle, rendererStats, test } from './fixtures.ts';

// Issue #18 (ranks): the two recorded gloo ranks, dropped together on the Import page, open as
// one trace with a group per rank holding every op of both files.
const rankFile = (rank: number): string =>
  fileURLToPath(new URL(`../fixtures/kineto/rank${rank}.pt.trace.json.gz`, import.meta.url));

interface TraceEntry {
  readonly id: string;
  readonly title: string;
  readonly opCount: number;
  readonly fileName?: string;
}

interface RowProbe {
  readonly kind: string;
  readonly label: string;
}

/** Drops files on the drop zone as a user's drag would (a DataTransfer holding File objects). */
async function dropFiles(
  page: Page,
  files: readonly { path: string; name: string }[],
): Promise<void> {
  const payload = await Promise.all(
    files.map(async (f) => ({ name: f.name, base64: (await readFile(f.path)).toString('base64') })),
  );
  const transfer = await page.evaluateHandle((items) => {
    const dt = new DataTransfer();
    for (const item of items) {
      const bytes = Uint8Array.from(atob(item.base64), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], item.name, { type: 'application/gzip' }));
    }
    return dt;
  }, payload);
  await page.getByTestId('dropzone').dispatchEvent('dragover', { dataTransfer: transfer });
  await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer: transfer });
}

test('two ranks dropped together open as one trace with a group per rank', async ({
  page,
  request,
}) => {
  await page.goto('/#/import');
  await idle(page);
  await dropFiles(page, [
    { path: rankFile(0), name: 'rank0.pt.trace.json.gz' },
    { path: rankFile(1), name: 'rank1.pt.trace.json.gz' },
  ]);
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
  await idle(page);

  const entries = (await (await request.get('/api/traces')).json()) as TraceEntry[];
  const single = (name: string): TraceEntry =>
    entries.find((e) => e.fileName === name && e.opCount > 0)!;
  const merged = entries.find((e) => e.title.startsWith('2 ranks: '))!;
  expect(merged).toBeDefined();
  // Every op of both files, and no other.
  const total = single('rank0.pt.trace.json.gz').opCount + single('rank1.pt.trace.json.gz').opCount;
  expect(merged.opCount).toBe(total);
  await expect(page.getByTestId('import-done')).toContainText(
    `${total.toLocaleString('en-US')} ops`,
  );

  await page.getByTestId('open-imported').click();
  await idle(page);
  const stats = await rendererStats(page, 'timeline');
  expect(stats?.traceOps).toBe(total);
  const rows = await page.evaluate(() => {
    const hooks = window as unknown as { __timelineRows: (id: string) => RowProbe[] };
    return hooks.__timelineRows('timeline');
  });
  const groups = rows.filter((r) => r.kind === 'group' && r.label.startsWith('rank '));
  expect(groups.map((r) => r.label.replace(/ \(pid \d+\)$/, ''))).toEqual([
    'rank 0 · python3',
    'rank 1 · python3',
  ]);
  for (const e of [merged, single('rank0.pt.trace.json.gz'), single('rank1.pt.trace.json.gz')]) {
    await request.delete(`/api/traces/${e.id}`);
  }
});

// The same two ranks dropped again: the server answers with the trace it merged before, the
// page says so, and the list gains nothing (neither the ranks nor their merge).
test('the same ranks dropped again offer the earlier merge and store nothing', async ({
  page,
  request,
}) => {
  const ranks = [
    { path: rankFile(0), name: 'rank0.pt.trace.json.gz' },
    { path: rankFile(1), name: 'rank1.pt.trace.json.gz' },
  ];
  const listed = async (): Promise<TraceEntry[]> =>
    (await (await request.get('/api/traces')).json()) as TraceEntry[];
  await page.goto('/#/import');
  await idle(page);
  await dropFiles(page, ranks);
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('import-duplicate')).toHaveCount(0);
  await idle(page);
  const before = await listed();
  const merged = before.find((e) => e.title.startsWith('2 ranks: '))!;
  expect(merged).toBeDefined();

  await dropFiles(page, ranks);
  await expect(page.getByTestId('import-duplicate')).toContainText(
    `rank0.pt.trace.json.gz and rank1.pt.trace.json.gz were already merged as ${merged.title} (${merged.opCount.toLocaleString('en-US')} ops,`,
    { timeout: 30_000 },
  );
  await expect(page.getByTestId('import-duplicate')).toContainText('nothing new was stored');
  await idle(page);
  const after = await listed();
  expect(after.map((e) => e.id).sort()).toEqual(before.map((e) => e.id).sort());

  await page.getByTestId('open-imported').click();
  await idle(page);
  expect(page.url()).toContain(`#/trace/${merged.id}`);
  const stats = await rendererStats(page, 'timeline');
  expect(stats?.traceOps).toBe(merged.opCount);
  for (const e of after.filter((x) => x.id === merged.id || x.fileName?.startsWith('rank'))) {
    await request.delete(`/api/traces/${e.id}`);
  }
});

test('two dropped files of the same bytes are named, not merged', async ({ page, request }) => {
  await page.goto('/#/import');
  await idle(page);
  await dropFiles(page, [
    { path: rankFile(0), name: 'first.pt.trace.json.gz' },
    { path: rankFile(0), name: 'copy.pt.trace.json.gz' },
  ]);
  await expect(page.getByTestId('import-error')).toContainText(
    "copy.pt.trace.json.gz: holds the same bytes as first.pt.trace.json.gz: give each rank's trace once",
    { timeout: 30_000 },
  );
  await idle(page);
  const entries = (await (await request.get('/api/traces')).json()) as TraceEntry[];
  expect(entries.filter((e) => e.title.startsWith('2 ranks: '))).toEqual([]);
  for (const e of entries.filter((x) => x.fileName === 'first.pt.trace.json.gz')) {
    await request.delete(`/api/traces/${e.id}`);
  }
});
