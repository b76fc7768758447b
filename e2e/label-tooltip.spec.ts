import { readFile } from 'node:fs/promises';
import { expect, idle, rows, test } from './fixtures.ts';
import { kinetoTrace } from './export-trace.ts';

// Issue #21: long names are ellipsized in the label column and on ops; hovering one shows the
// whole name.
const threadName = 'python3 train.py main thread (DataLoader worker 0, pin_memory, autograd)';
const kernelName =
  'void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)_with_a_long_tail';

test('a cut row label and a cut op label show their whole names on hover', async ({
  page,
  request,
}) => {
  const uploaded = await request.put('/api/imports?filename=long-names.pt.trace.json', {
    data: kinetoTrace(kernelName, threadName),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  const { id } = (await uploaded.json()) as { id: string };
  await page.goto(`/#/trace/${id}?t=0,2260000`);
  await idle(page);
  const timeline = page.getByTestId('timeline');
  const box = (await timeline.boundingBox())!;
  const all = await rows(page);
  const thread = all.find((r) => r.kind === 'track' && r.label === threadName)!;
  const stream = all.find((r) => r.kind === 'track' && r.label === 'Stream 7')!;
  expect(thread).toBeDefined();
  expect(stream).toBeDefined();

  // The export shows what the canvas draws: the thread's label and the kernels' are cut.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-svg').click(),
  ]);
  const svg = await readFile(await download.path(), 'utf8');
  expect(svg).not.toContain(`>${threadName}<`);
  expect(svg).toContain(`>${threadName.slice(0, 12)}`);
  expect(svg).not.toContain(`>${kernelName}<`);
  expect(svg).toContain(`>${kernelName.slice(0, 12)}`);

  // Over the label column: the whole thread name.
  await page.mouse.move(box.x + 60, box.y + thread.topPx + thread.heightPx / 2);
  await idle(page);
  await expect(page.getByTestId('label-tooltip')).toHaveText(threadName);
  // A label drawn whole needs no tooltip.
  await page.mouse.move(box.x + 60, box.y + stream.topPx + stream.heightPx / 2);
  await idle(page);
  await expect(page.getByTestId('label-tooltip')).toHaveCount(0);

  // Over the first kernel (30 to 630 µs of the 2.26 ms window): the op tooltip names it whole.
  const xPx = 200 + (330 / 2260) * (box.width - 200);
  await page.mouse.move(box.x + xPx, box.y + stream.topPx + stream.heightPx / 2);
  await idle(page);
  await expect(page.getByTestId('tooltip').locator('.tooltip-name')).toHaveText(kernelName);
  await page.mouse.move(box.x + 5, box.y + 5);
  await idle(page);
  await expect(page.getByTestId('label-tooltip')).toHaveCount(0);
  await request.delete(`/api/traces/${id}`);
});
