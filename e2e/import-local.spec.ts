import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { writeBigKinetoTrace } from './big-kineto-trace.ts';
import { expect, idle, rendererStats, test } from './fixtures.ts';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** What the trace view shows of a trace: its rows, op total and headline metrics. */
interface TraceViewFacts {
  readonly rows: string[];
  readonly opTotal: string;
  readonly makespan: string;
  readonly utilization: string;
  readonly overlap: string;
  readonly traceOps: number | undefined;
}

async function traceViewFacts(page: Page): Promise<TraceViewFacts> {
  await idle(page);
  await expect(page.getByTestId('metric-makespan')).toBeVisible();
  return {
    rows: await page.getByTestId('stream-item').locator('.name').allTextContents(),
    opTotal: (await page.getByTestId('trace-op-total').textContent()) ?? '',
    makespan: (await page.getByTestId('metric-makespan').textContent()) ?? '',
    utilization: (await page.getByTestId('metric-utilization').textContent()) ?? '',
    overlap: (await page.getByTestId('metric-overlap').textContent()) ?? '',
    traceOps: (await rendererStats(page, 'timeline'))?.traceOps,
  };
}

const cases = [
  { file: 'nsys/2025.3.1/train.sqlite', tracks: 5 },
  { file: 'kineto/train.pt.trace.json.gz', tracks: 4 },
] as const;

for (const c of cases) {
  test(`opens ${c.file} locally with the rows and op counts the server import shows`, async ({
    page,
    request,
  }) => {
    // The server's import of the file, opened in the trace view.
    await page.goto('/#/import');
    await idle(page);
    await page.getByTestId('import-file-input').setInputFiles(path.join(fixtures, c.file));
    await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
    await page.getByTestId('open-imported').click();
    const fromServer = await traceViewFacts(page);
    expect(fromServer.rows).toHaveLength(c.tracks);
    const serverTraceId = decodeURIComponent(/#\/trace\/([^?]+)/.exec(page.url())![1]!);
    const listedBefore = ((await (await request.get('/api/traces')).json()) as unknown[]).length;

    // The same file read in this browser's worker: nothing is uploaded.
    const uploads: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/imports')) {
        uploads.push(r.url());
      }
    });
    await page.goto('/#/import');
    await idle(page);
    await page.getByTestId('import-local-toggle').check();
    await page.getByTestId('import-file-input').setInputFiles(path.join(fixtures, c.file));
    await expect(page).toHaveURL(/#\/trace\/local%3A\d+/, { timeout: 30_000 });
    const local = await traceViewFacts(page);

    expect(local).toEqual(fromServer);
    expect(local.traceOps).toBe(Number(fromServer.opTotal.replace(/,/g, '')));
    expect((await rendererStats(page, 'timeline'))?.drawnOps).toBeGreaterThan(0);
    expect(uploads).toEqual([]);
    const listedAfter = ((await (await request.get('/api/traces')).json()) as unknown[]).length;
    expect(listedAfter).toBe(listedBefore);
    await request.delete(`/api/traces/${serverTraceId}`);
  });
}

test('a file the importers cannot read locally shows their error, naming the file', async ({
  page,
}) => {
  await page.goto('/#/import');
  await idle(page);
  await page.getByTestId('import-local-toggle').check();
  await page
    .getByTestId('import-file-input')
    .setInputFiles(path.join(fixtures, 'broken/wrong-format.json'));
  const error = page.getByTestId('import-error');
  await expect(error).toBeVisible({ timeout: 30_000 });
  await expect(error).toContainText('wrong-format.json could not be imported');
  await expect(error).toContainText('not a format streamscope reads');
});

test('a local import shows its progress in bytes read and can be cancelled while it reads', async ({
  page,
}) => {
  const bigTrace = path.join(tmpdir(), `streamscope-e2e-local-${process.pid}.json`);
  await writeBigKinetoTrace(bigTrace, 300_000);
  try {
    await page.goto('/#/import');
    await idle(page);
    await page.getByTestId('import-local-toggle').check();
    await page.getByTestId('import-file-input').setInputFiles(bigTrace);
    const bar = page.getByTestId('import-progress');
    await expect(bar).toHaveAttribute('data-stage', 'parsing');
    await expect(bar).not.toHaveAttribute('data-done-bytes', '0');
    await expect(page.getByTestId('import-stage')).toContainText(
      /(reading|building the trace) here/,
    );
    await page.getByTestId('import-cancel').click();
    await expect(page.getByTestId('import-cancelled')).toBeVisible();
    await expect(bar).toHaveCount(0);
    await expect(page).toHaveURL(/#\/import$/);
  } finally {
    await rm(bigTrace, { force: true });
  }
});
