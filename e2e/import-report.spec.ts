import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeNsysStandIn, writeTestReport } from '../apps/server/scripts/nsys-stand-in.ts';
import { expect, idle, rendererStats, test } from './fixtures.ts';
import type { ServerProcess } from './server-process.ts';
import { startServerProcess } from './server-process.ts';

// A server started with `--nsys PATH` exports an uploaded Nsight Systems report with that nsys:
// here a stand-in that writes a recorded SQLite export (graph.sqlite.gz, 39 kernels on 4
// streams), as `nsys export --type sqlite` would. CI has no nsys.

let server: ServerProcess | undefined;
let base = '';
let dir = '';

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'streamscope-e2e-report-'));
  const nsys = await writeNsysStandIn(dir, 'export');
  server = await startServerProcess(path.join(dir, 'data'), ['--nsys', nsys]);
  base = server.base;
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an uploaded .nsys-rep is exported by the server’s nsys and opens as its trace', async ({
  page,
}) => {
  const report = await writeTestReport(dir, 'step.nsys-rep');
  await page.goto(`${base}/#/import`);
  await idle(page);
  // The file chooser offers reports (its accept list is what the dialog filters by).
  const accept = (await page.getByTestId('import-file-input').getAttribute('accept'))!.split(',');
  expect(accept).toEqual(
    expect.arrayContaining(['.nsys-rep', '.qdrep', '.json', '.gz', '.sqlite']),
  );
  await expect(page.getByTestId('dropzone')).toContainText('Nsight Systems report (.nsys-rep');
  await page.getByTestId('import-file-input').setInputFiles(report);
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
  await idle(page);
  const [entry] = (await (await fetch(`${base}/api/traces`)).json()) as {
    opCount: number;
    fileName: string;
    format: string;
  }[];
  expect(entry).toMatchObject({ fileName: 'step.nsys-rep', format: 'nsys-sqlite' });

  await page.getByTestId('open-imported').click();
  await idle(page);
  await expect(page.getByTestId('trace-op-total')).toHaveText(
    entry!.opCount.toLocaleString('en-US'),
  );
  await expect(page.getByTestId('stream-item')).toHaveCount(4);
  expect((await rendererStats(page, 'timeline'))?.drawnOps).toBeGreaterThan(0);
});
