import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import type { RowProbe } from './fixtures.ts';
import { expect, idle, rows, test } from './fixtures.ts';

// Issue #17: a cudaStreamSynchronize record was drawn in its stream's row over the copy it waited
// for. In nsys/2025.3.1/train.json, Stream 7's "Stream synchronize" (op 53, 161,972,486 to
// 161,992,861 ns) starts while its "Memcpy HtoD" (op 51, 161,845,564 to 161,988,800 ns) runs:
// the wait must sit in the stream's 'Host waits' lane, the copy alone in the stream's row.
const train = fileURLToPath(new URL('../fixtures/nsys/2025.3.1/train.json', import.meta.url));
const copy = { startNs: 161_845_564, endNs: 161_988_800 };
const sync = { startNs: 161_972_486, endNs: 161_992_861 };
const view = { startNs: 161_950_000, endNs: 162_000_000 };

/** Stream 7's row and the row right under it. */
async function streamAndLane(page: Page): Promise<[RowProbe, RowProbe | undefined]> {
  const all = await rows(page);
  const at = all.findIndex((r) => r.kind === 'track' && r.label === 'Stream 7');
  expect(at).toBeGreaterThanOrEqual(0);
  return [all[at]!, all[at + 1]];
}

/** How many canvas pixels in [x0, x1) × [y0, y1) (CSS px, scale 1) are exactly `hex`, of all. */
async function pixelsOf(
  page: Page,
  box: readonly [number, number, number, number],
  hex: string,
): Promise<{ matching: number; total: number }> {
  return page.getByTestId('timeline').evaluate(
    (canvas: HTMLCanvasElement, [[x0, x1, y0, y1], color]) => {
      const data = canvas.getContext('2d')!.getImageData(x0, y0, x1 - x0, y1 - y0).data;
      const want = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
      let matching = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i] === want[0] && data[i + 1] === want[1] && data[i + 2] === want[2]) {
          matching++;
        }
      }
      return { matching, total: data.length / 4 };
    },
    [box, hex] as const,
  );
}

test('a stream synchronize is drawn in its own lane, never over the copy it waits for', async ({
  page,
  request,
}) => {
  const uploaded = await request.put('/api/imports?filename=train.json', {
    data: await readFile(train),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  const { id } = (await uploaded.json()) as { id: string };
  await page.goto(`/#/trace/${id}?t=${view.startNs},${view.endNs}`);
  await idle(page);

  const [stream, lane] = await streamAndLane(page);
  expect(lane).toMatchObject({ kind: 'sync', label: 'Host waits', track: stream.track });
  expect(lane!.topPx).toBe(stream.topPx + stream.heightPx);
  expect(lane!.heightPx).toBeLessThan(stream.heightPx);
  // nsys' 'Context 1 sync' track holds nothing but waits: they stay in its row, no lane.
  expect((await rows(page)).filter((r) => r.kind === 'sync')).toHaveLength(1);

  const canvasBox = (await page.getByTestId('timeline').boundingBox())!;
  // 200 px of gutter, then the window over the rest of the canvas.
  const xOf = (ns: number) =>
    200 + ((ns - view.startNs) / (view.endNs - view.startNs)) * (canvasBox.width - 200);
  const overlap = [Math.ceil(xOf(sync.startNs)) + 1, Math.floor(xOf(copy.endNs)) - 1] as const;
  // Where both run, the stream's row (inside its 3 px padding) is the copy's orange alone…
  const inRow = await pixelsOf(
    page,
    [overlap[0], overlap[1], stream.topPx + 3, stream.topPx + stream.heightPx - 3],
    '#e69f00',
  );
  expect(inRow.total).toBeGreaterThan(1000);
  expect(inRow.matching).toBe(inRow.total);
  // …and the lane is the synchronize's grey (its label in white takes a few pixels).
  const inLane = await pixelsOf(
    page,
    [
      Math.ceil(xOf(sync.startNs)) + 1,
      Math.floor(xOf(sync.endNs)) - 1,
      lane!.topPx + 1,
      lane!.topPx + lane!.heightPx - 1,
    ],
    '#5f5f5f',
  );
  expect(inLane.matching).toBeGreaterThan(inLane.total * 0.6);

  // Hovering and clicking find each where it is drawn.
  const x = canvasBox.x + (overlap[0] + overlap[1]) / 2;
  await page.mouse.move(x, canvasBox.y + stream.topPx + stream.heightPx / 2);
  await expect(page.getByTestId('tooltip')).toContainText('Memcpy HtoD');
  await page.mouse.move(x, canvasBox.y + lane!.topPx + lane!.heightPx / 2);
  await expect(page.getByTestId('tooltip')).toContainText('Stream synchronize');
  await page.mouse.click(x, canvasBox.y + lane!.topPx + lane!.heightPx / 2);
  await idle(page);
  await expect(page.getByTestId('details-name')).toHaveText('Stream synchronize');
  await expect(page.getByTestId('details-kind')).toHaveText('stream-sync');

  // A shift-drag along the lane takes Stream 7's ops, not every track's.
  await page.keyboard.press('Escape');
  const laneY = canvasBox.y + lane!.topPx + lane!.heightPx / 2;
  await page.keyboard.down('Shift');
  await page.mouse.move(canvasBox.x + xOf(161_960_000), laneY);
  await page.mouse.down();
  await page.mouse.move(canvasBox.x + xOf(161_995_000), laneY, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await idle(page);
  const kinds = await page.getByTestId('area-row').locator('td:first-child').allInnerTexts();
  expect(kinds.sort()).toEqual(['copy-htod', 'stream-sync']);

  // The Streams panel pins the stream with its lane, and hiding it hides the lane too.
  await page.getByTestId('stream-panel').locator('summary').click();
  const item = page.getByTestId('stream-item').filter({ hasText: 'Stream 7' });
  await item.getByTestId('pin-stream').click();
  await idle(page);
  const pinned = await rows(page);
  expect(pinned.slice(0, 2).map((r) => [r.kind, r.track])).toEqual([
    ['track', stream.track],
    ['sync', stream.track],
  ]);
  await item.getByTestId('pin-stream').click();
  await item.getByTestId('hide-stream').click();
  await idle(page);
  expect((await rows(page)).filter((r) => r.track === stream.track)).toEqual([]);
  await request.delete(`/api/traces/${id}`);
});
