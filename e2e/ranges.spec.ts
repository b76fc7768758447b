import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, idle, rows, test } from './fixtures.ts';

// Issue #21: PyTorch CPU-op ranges (kineto) are named for what they are, not "NVTX"; hovering
// one shows its name, duration, depth and domain, and a click selects it with its details.
const basic = fileURLToPath(new URL('../fixtures/kineto/basic.pt.trace.json.gz', import.meta.url));

test('a CPU-op range has a tooltip and selects on click with its details', async ({
  page,
  request,
}) => {
  const uploaded = await request.put('/api/imports?filename=basic.pt.trace.json.gz', {
    data: await readFile(basic),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  const { id } = (await uploaded.json()) as { id: string };
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  await page.getByTestId('fit-all').click();
  await idle(page);
  const lanes = (await rows(page)).filter((r) => r.kind === 'nvtx');
  expect(lanes.length).toBeGreaterThan(0);
  // Lanes of aten:: ops say so; none of them is called NVTX.
  expect(lanes.some((r) => r.label.startsWith('CPU ops'))).toBe(true);
  expect(lanes.every((r) => r.label !== 'NVTX')).toBe(true);

  // Down the outermost lane of the CPU-op rows until a range is under the pointer.
  const lane = lanes.find((r) => r.label.startsWith('CPU ops'))!;
  const box = (await page.getByTestId('timeline').boundingBox())!;
  const y = box.y + lane.topPx + 7;
  const tooltip = page.getByTestId('range-tooltip');
  let x = box.x + 201;
  for (; x < box.x + box.width; x += 4) {
    await page.mouse.move(x, y);
    if (await tooltip.isVisible()) {
      break;
    }
  }
  await expect(tooltip).toBeVisible();
  await expect(tooltip).toContainText('CPU ops');
  await expect(tooltip).toContainText('depth 0');
  await expect(tooltip).toContainText('domain cpu_op');
  const name = (await tooltip.locator('.tooltip-name').innerText()).trim();

  await page.mouse.click(x, y);
  await idle(page);
  await expect(page.getByTestId('details-name')).toHaveText(name);
  await expect(page.getByTestId('details-kind')).toContainText('CPU ops range');
  await expect(page.getByTestId('details-depth')).toHaveText('0');
  await expect(page.getByTestId('details-domain')).toHaveText('cpu_op');
  await expect(page.getByTestId('details-duration')).toHaveText(/\d (ns|µs|ms|s)$/);
  // Escape clears it.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('details-name')).toHaveCount(0);
  await request.delete(`/api/traces/${id}`);
});
