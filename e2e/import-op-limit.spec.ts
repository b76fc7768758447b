import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, idle, test } from './fixtures.ts';
import type { ServerProcess } from './server-process.ts';
import { startServerProcess } from './server-process.ts';

// A server started with `--max-ops N` (the limit of ops one import keeps, by default sized from
// the machine's memory) refuses an upload over it, and the Import page says why and which flag
// raises it: a SQLite export by its tables' sizes, a streamed trace at the op past the limit.

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

let server: ServerProcess | undefined;
let base = '';
let dataDir = '';

test.beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'streamscope-e2e-ops-'));
  server = await startServerProcess(dataDir, ['--max-ops', '500']);
  base = server.base;
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("an upload over the server's --max-ops is refused, saying the limit and the flag", async ({
  page,
}) => {
  await page.goto(`${base}/#/import`);
  await idle(page);
  const error = page.getByTestId('import-error');
  await page
    .getByTestId('import-file-input')
    .setInputFiles(path.join(fixtures, 'nsys/2025.3.1/graph.sqlite.gz'));
  await expect(error).toBeVisible({ timeout: 30_000 });
  await expect(error).toContainText('graph.sqlite.gz could not be imported');
  await expect(error).toContainText('hold up to 1425 rows');
  await expect(error).toContainText('over the limit of 500 ops an import keeps');
  // Its rows are known before they are read: the answer says what keeps it all.
  await expect(error).toContainText('start the server with --max-ops 1430');
  await expect(error).toContainText('or more to keep it all: about 143 kB');

  await page
    .getByTestId('import-file-input')
    .setInputFiles(path.join(fixtures, 'kineto/train.pt.trace.json.gz'));
  await expect(error).toContainText('train.pt.trace.json.gz could not be imported');
  await expect(error).toContainText('the trace has more than 500 ops');
  await expect(error).toContainText('--max-ops N');

  // Nothing was kept, and a trace under the limit still imports.
  expect(await (await fetch(`${base}/api/traces`)).json()).toEqual([]);
  await page
    .getByTestId('import-file-input')
    .setInputFiles(path.join(fixtures, 'kineto/compile.pt.trace.json.gz'));
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
});
