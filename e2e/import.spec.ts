import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, idle, rendererStats, test } from './fixtures.ts';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** What `pnpm streamscope import FILE --summary` reports for each fixture (see fixtures/). */
const cases = [
  { file: 'nsys/2025.3.1/train.json', format: 'nsys-json', tracks: 5, kernels: 292, copies: 34 },
  {
    file: 'nsys/2025.3.1/train.sqlite',
    format: 'nsys-sqlite',
    tracks: 5,
    kernels: 292,
    copies: 34,
  },
  {
    file: 'nsys/2025.3.1/graph.sqlite.gz',
    format: 'nsys-sqlite',
    tracks: 4,
    kernels: 39,
    copies: 25,
  },
  {
    file: 'kineto/train.pt.trace.json.gz',
    format: 'chrome-trace',
    tracks: 4,
    kernels: 300,
    copies: 30,
  },
] as const;

interface TraceEntry {
  readonly id: string;
  readonly opCount: number;
  readonly format: string;
}

for (const c of cases) {
  test(`imports ${c.file} and draws its streams and ops`, async ({ page, request }) => {
    await page.goto('/#/import');
    await idle(page);
    await page.getByTestId('import-file-input').setInputFiles(path.join(fixtures, c.file));
    await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
    await idle(page);

    const entries = (await (await request.get('/api/traces')).json()) as TraceEntry[];
    const entry = entries.find((e) => e.format === c.format && e.opCount > 0);
    expect(entry).toBeDefined();
    await expect(page.getByTestId('import-done')).toContainText(
      `${entry!.opCount.toLocaleString('en-US')} ops`,
    );

    await page.getByTestId('open-imported').click();
    await idle(page);
    await expect(page.getByTestId('trace-op-total')).toHaveText(
      entry!.opCount.toLocaleString('en-US'),
    );
    await expect(page.getByTestId('stream-item')).toHaveCount(c.tracks);
    const stats = await rendererStats(page, 'timeline');
    expect(stats?.traceOps).toBe(entry!.opCount);
    expect(stats?.drawnOps).toBeGreaterThan(0);
    // Kernels and copies are all there: the API's kind counts match the importer's summary.
    const analysis = (await (await request.get(`/api/traces/${entry!.id}/analysis`)).json()) as {
      metrics: { opCounts: Record<string, number> };
    };
    const counts = analysis.metrics.opCounts;
    const copies = Object.entries(counts)
      .filter(([kind]) => kind.startsWith('copy-'))
      .reduce((sum, [, n]) => sum + n, 0);
    expect(counts['kernel']).toBe(c.kernels);
    expect(copies).toBe(c.copies);
    await request.delete(`/api/traces/${entry!.id}`);
  });
}

test('a broken file shows its error, naming the file and the place', async ({ page }) => {
  await page.goto('/#/import');
  await idle(page);
  await page
    .getByTestId('import-file-input')
    .setInputFiles(path.join(fixtures, 'broken/wrong-format.json'));
  const error = page.getByTestId('import-error');
  await expect(error).toBeVisible({ timeout: 30_000 });
  await expect(error).toContainText('wrong-format.json could not be imported');
  await expect(error).toContainText('not a format streamscope reads');

  await page
    .getByTestId('import-file-input')
    .setInputFiles(path.join(fixtures, 'broken/report.nsys-rep'));
  await expect(error).toContainText('report.nsys-rep could not be imported');
  await expect(error).toContainText('nsys export');
});

test('an import that recovered from a truncated file says what it lacks, there and in the view', async ({
  page,
}) => {
  await page.goto('/#/import');
  await idle(page);
  await page
    .getByTestId('import-file-input')
    .setInputFiles(path.join(fixtures, 'broken/truncated.json'));
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
  const warnings = page.getByTestId('import-warnings');
  await expect(warnings).toContainText('3 warnings from the import');
  await expect(warnings).toContainText('the file ends in the middle of line 14');
  await page.getByTestId('open-imported').click();
  await idle(page);
  await expect(page.getByTestId('trace-warnings')).toContainText(
    'the file ends in the middle of line 14',
  );
  // A clean import carries no warning box.
  await page.goto('/#/import');
  await idle(page);
  await page
    .getByTestId('import-file-input')
    .setInputFiles(path.join(fixtures, 'kineto/kineto-2021.json'));
  await expect(page.getByTestId('import-done')).toContainText('kineto-2021.json');
  await expect(page.getByTestId('import-warnings')).toHaveCount(0);
});

test('a file dropped on the drop zone is imported', async ({ page }) => {
  await page.goto('/#/import');
  await idle(page);
  const bytes = [...(await readFile(path.join(fixtures, 'kineto/kineto-2021.json')))];
  // What the browser hands a drop: a DataTransfer holding the file.
  const transfer = await page.evaluateHandle((data) => {
    const t = new DataTransfer();
    t.items.add(new File([new Uint8Array(data)], 'dropped-kineto.json'));
    return t;
  }, bytes);
  const zone = page.getByTestId('dropzone');
  await zone.dispatchEvent('dragover', { dataTransfer: transfer });
  await zone.dispatchEvent('drop', { dataTransfer: transfer });
  await expect(page.getByTestId('import-done')).toContainText('dropped-kineto.json', {
    timeout: 30_000,
  });
});
