import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, idle, test } from './fixtures.ts';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

/** Twenty 300 ms kernels at real-time pace: six seconds, ample time to watch and cancel. */
const slowWorkload = {
  name: 'twin slow run',
  streams: [{ name: 's', count: 1, type: 'non-blocking' }],
  threads: [
    {
      name: 'main',
      ops: [
        {
          op: 'repeat',
          count: 20,
          ops: [{ op: 'kernel', name: 'slow[{i}]', duration: '300ms', stream: 's[0]' }],
        },
        { op: 'deviceSync' },
      ],
    },
  ],
};

test('two runs of the same workload are told apart, watched and cancelled each on its own', async ({
  page,
}) => {
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const started = await page.request.post('/api/runs', {
      data: { workload: slowWorkload, backend: 'sim' },
    });
    expect(started.status()).toBe(202);
    ids.push(((await started.json()) as { id: string }).id);
  }
  const [first, second] = ids as [string, string];
  await page.goto('/#/run');
  const items = page.getByTestId('queue-item');
  await expect(items).toHaveCount(2);
  // Same title, told apart by when they started and by id.
  for (const id of ids) {
    const item = page.locator(`[data-testid=queue-item][data-run-id="${id}"]`);
    await expect(item).toContainText('twin slow run');
    await expect(item).toContainText(id);
    await expect(item).toContainText(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
  }

  // Watch the older one: the live view follows it.
  const older = page.locator(`[data-testid=queue-item][data-run-id="${first}"]`);
  await older.getByTestId('queue-watch').click();
  await expect(older.getByTestId('queue-watch')).toHaveText('Watching');
  await expect(page.getByTestId('run-status')).toBeVisible();

  // Cancel the older one only: the newer one goes on running.
  await older.getByTestId('queue-cancel').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'cancelled');
  await expect(page.locator(`[data-testid=queue-item][data-run-id="${first}"]`)).toHaveCount(0, {
    timeout: 10_000,
  });
  const newer = page.locator(`[data-testid=queue-item][data-run-id="${second}"]`);
  await expect(newer).toHaveAttribute('data-status', 'running');

  await newer.getByTestId('queue-cancel').click();
  await expect(items).toHaveCount(0, { timeout: 10_000 });
  const listed = (await (await page.request.get('/api/traces')).json()) as {
    id: string;
    status: string;
  }[];
  expect(listed.filter((entry) => ids.includes(entry.id)).map((entry) => entry.status)).toEqual([
    'cancelled',
    'cancelled',
  ]);
});

test('delete asks once more, Keep keeps the trace, and the list shows dates', async ({ page }) => {
  const stored = await page.request.put('/api/imports?filename=delete-me.json', {
    data: await readFile(path.join(fixtures, 'kineto/kineto-2021.json')),
  });
  expect(stored.status()).toBe(201);
  const id = ((await stored.json()) as { id: string }).id;
  await page.goto('/#/traces');
  await idle(page);
  const row = page.locator(`[data-testid=trace-row][data-trace-id="${id}"]`);
  await expect(row).toContainText(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);

  await row.getByTestId('delete-trace').click();
  await expect(row.getByTestId('delete-confirm')).toBeVisible();
  await row.getByTestId('delete-keep').click();
  await expect(row.getByTestId('delete-trace')).toBeVisible();
  await idle(page);
  await expect(row).toHaveCount(1);

  await row.getByTestId('delete-trace').click();
  await row.getByTestId('delete-confirm').click();
  await idle(page);
  await expect(row).toHaveCount(0);
  expect((await page.request.get(`/api/traces/${id}`)).status()).toBe(404);
});

test('a trace that cannot be opened leaves Fit, PNG, SVG and Link disabled', async ({ page }) => {
  await page.goto('/#/trace/nosuchtrace1');
  await idle(page);
  await expect(page.getByTestId('trace-error')).toBeVisible();
  for (const id of ['fit', 'export-png', 'export-svg', 'copy-link']) {
    await expect(page.getByTestId(id)).toBeDisabled();
  }
});

test('the Run form shows every parameter limit inline, in human units, before Run is pressed', async ({
  page,
}) => {
  await page.goto('/#/run');
  await idle(page);
  await page.getByTestId('preset-select').selectOption('pipeline');
  await page.locator('#param-size').fill('9GiB');
  await page.locator('#param-chunks').fill('0');
  await page.locator('#param-kernelUs').fill('2000000');
  await expect(page.getByTestId('param-error-size')).toHaveText('size: at most 8 GiB');
  await expect(page.getByTestId('param-error-chunks')).toHaveText('chunks: at least 1');
  await expect(page.getByTestId('param-error-kernelUs')).toHaveText('kernelUs: at most 1 s');
  await expect(page.getByTestId('run-blocked')).toContainText('the 3 parameters');
  await expect(page.getByTestId('run-button')).toBeDisabled();
  await page.locator('#param-size').fill('64MiB');
  await page.locator('#param-chunks').fill('8');
  await page.locator('#param-kernelUs').fill('2000');
  await expect(page.getByTestId('run-blocked')).toHaveCount(0);
  await expect(page.getByTestId('run-button')).toBeEnabled();
});
