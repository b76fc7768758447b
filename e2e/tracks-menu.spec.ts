import type { APIRequestContext } from '@playwright/test';
import { kinetoTrace } from './export-trace.ts';
import { expect, idle, test } from './fixtures.ts';

// Issue #21 walk-through: the Tracks menu drops over the page (the timeline does not move),
// closes on Esc and on a click outside, hands the keyboard back to the timeline so `?` works
// right after ticking a box, and says when a trace has no host ranges to project.

async function upload(request: APIRequestContext, name: string, body: string): Promise<string> {
  const uploaded = await request.put(`/api/imports?filename=${name}`, {
    data: body,
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  return ((await uploaded.json()) as { id: string }).id;
}

test('the Tracks menu overlays the timeline, closes on Esc or outside, and keeps shortcuts', async ({
  page,
  request,
}) => {
  const id = await upload(request, 'menu.pt.trace.json', kinetoTrace());
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  const timeline = page.getByTestId('timeline');
  const before = (await timeline.boundingBox())!;
  const panel = page.getByTestId('tracks-menu-panel');

  await page.getByTestId('tracks-menu-button').click();
  await expect(panel).toBeVisible();
  const open = (await timeline.boundingBox())!;
  expect(open.y).toBe(before.y);
  expect(open.height).toBe(before.height);
  await expect(page.getByTestId('track-lanes-launch')).toBeEnabled();

  // Ticking a box leaves focus on it; `?` still opens the shortcut overlay.
  await page.getByTestId('track-lanes-queue').check();
  await page.keyboard.press('Shift+Slash');
  const help = page.getByTestId('shortcut-help');
  await expect(help).toBeVisible();
  // One Esc closes one layer: the overlay on top first, the menu under it stays open.
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);
  await expect(panel).toBeVisible();

  // The next Esc closes the menu and gives the keyboard back to the timeline.
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
  await expect(timeline).toBeFocused();

  // A click outside closes it.
  await page.getByTestId('tracks-menu-button').click();
  await expect(panel).toBeVisible();
  await page.getByTestId('trace-title').click();
  await expect(panel).toHaveCount(0);
  await request.delete(`/api/traces/${id}`);
});

test('a trace without host ranges disables "Host ranges on the GPU" and says why', async ({
  page,
  request,
}) => {
  const parsed = JSON.parse(kinetoTrace()) as { traceEvents: { cat?: string }[] };
  const noRanges = JSON.stringify({
    ...parsed,
    traceEvents: parsed.traceEvents.filter((e) => e.cat !== 'user_annotation'),
  });
  const id = await upload(request, 'no-ranges.pt.trace.json', noRanges);
  await page.goto(`/#/trace/${id}`);
  await idle(page);
  await page.getByTestId('tracks-menu-button').click();
  await expect(page.getByTestId('track-lanes-launch')).toBeDisabled();
  await expect(page.getByTestId('track-lanes-launch-note')).toHaveText(
    '(no host ranges in this trace)',
  );
  await expect(page.getByTestId('track-lanes-queue')).toBeEnabled();
  await request.delete(`/api/traces/${id}`);
});
