import type { Page } from '@playwright/test';
import { expect, idle, rendererStats, rows, test } from './fixtures.ts';

// The overlap lab, walked in Debian chromium against the real server. Every lesson opens with
// its pitfall fixed in the after run; switching the pitfall back on makes both runs the same
// workload, so the speedup must move from the lesson's effect back to 1.

type Effect = 'faster' | 'slower' | 'same';

/** Each lesson's effect of fixing the pitfall on the profile it opens with. */
const expectedEffects: Readonly<Record<string, Effect>> = {
  'chunked-pipeline': 'faster',
  'issue-order-one-engine': 'faster',
  'issue-order-two-engines': 'faster',
  'issue-order-hyper-q': 'same',
  'legacy-vs-non-blocking': 'faster',
  'legacy-vs-per-thread': 'faster',
  'pinned-vs-pageable': 'faster',
  'over-synchronization': 'faster',
  'events-vs-device-sync': 'faster',
  'stream-priorities': 'faster',
  'malloc-async': 'faster',
  'cuda-graphs': 'faster',
  'stream-count': 'faster',
  'ddp-overlap': 'faster',
};

/** Speedups within this share of each other count as no move (as in lesson-types.ts). */
const sameTolerance = 0.1;

async function openLessons(page: Page): Promise<void> {
  await page.goto('/#/lessons');
  await expect(page.getByTestId('lessons-page')).toBeVisible();
  await idle(page);
}

/** The speedup shown for `lessonId` once its pair has finished. */
async function speedupOf(page: Page, lessonId: string): Promise<number> {
  await idle(page);
  const shown = page.getByTestId('lesson-speedup');
  await expect(shown).toHaveAttribute('data-lesson', lessonId);
  await expect(page.getByTestId(`lesson-${lessonId}`)).toHaveAttribute('data-status', 'ready');
  const value = Number(await shown.getAttribute('data-speedup'));
  expect(Number.isFinite(value) && value > 0).toBe(true);
  return value;
}

function expectMove(fixed: number, withPitfall: number, effect: Effect): void {
  if (effect === 'faster') {
    expect(fixed).toBeGreaterThan(withPitfall * (1 + sameTolerance));
  } else if (effect === 'slower') {
    expect(fixed).toBeLessThan(withPitfall * (1 - sameTolerance));
  } else {
    expect(Math.abs(fixed / withPitfall - 1)).toBeLessThanOrEqual(sameTolerance);
  }
}

test('the lesson list holds every lesson this walk checks', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('nav-lessons').click();
  await expect(page).toHaveURL(/#\/lessons/);
  await expect(page.getByTestId('lessons-page')).toBeVisible();
  await idle(page);
  const items = await page.locator('[data-testid^="lesson-item-"]').all();
  const testIds = await Promise.all(items.map((item) => item.getAttribute('data-testid')));
  const ids = testIds.map((testId) => (testId ?? '').slice('lesson-item-'.length));
  expect(ids.length).toBeGreaterThanOrEqual(10);
  expect([...ids].sort()).toEqual(Object.keys(expectedEffects).sort());
});

for (const [lessonId, effect] of Object.entries(expectedEffects)) {
  test(`lesson ${lessonId}: flipping the pitfall moves the speedup (${effect})`, async ({
    page,
  }) => {
    await openLessons(page);
    await page.getByTestId(`lesson-item-${lessonId}`).click();
    const toggle = page.getByTestId('lesson-pitfall-toggle');
    await expect(toggle).not.toBeChecked();
    const fixed = await speedupOf(page, lessonId);

    // Both Gantts drew the simulated ops.
    for (const side of ['before', 'after']) {
      const stats = await rendererStats(page, `lesson-gantt-${side}`);
      expect(stats?.traceOps ?? 0).toBeGreaterThan(0);
      expect(stats?.drawnOps ?? 0).toBeGreaterThan(0);
    }

    await toggle.check();
    await expect(toggle).toBeChecked();
    await idle(page);
    const withPitfall = await speedupOf(page, lessonId);
    // The same workload twice: the simulator is deterministic.
    expect(withPitfall).toBeCloseTo(1, 6);
    expectMove(fixed, withPitfall, effect);

    await toggle.uncheck();
    expect(await speedupOf(page, lessonId)).toBeCloseTo(fixed, 6);
  });
}

test('the DDP lesson shows the communication streams and how much communication hides', async ({
  page,
}) => {
  await openLessons(page);
  await page.getByTestId('lesson-item-ddp-overlap').click();
  await speedupOf(page, 'ddp-overlap');
  const figure = page.getByTestId('lesson-comm-overlap');
  await expect(figure).toBeVisible();
  await expect(figure).toContainText('Communication hidden under compute');
  // Before: every all-reduce after the backward; after: most of them under it.
  expect(Number(await figure.getAttribute('data-before'))).toBe(0);
  const hidden = Number(await figure.getAttribute('data-after'));
  expect(hidden).toBeGreaterThan(0.5);
  // Both GPUs' compute and communication streams are rows of the after timeline.
  const labels = (await rows(page, 'lesson-gantt-after')).map((r) => r.label);
  for (const stream of ['compute0', 'comm0', 'compute1', 'comm1']) {
    expect(labels.some((label) => label.includes(stream))).toBe(true);
  }
  // The largest buckets fill late: less of the communication hides.
  await page.getByTestId('lesson-param-bucketMiB').fill('512');
  await expect(page.getByTestId('lesson-param-bucketMiB-value')).toHaveText('512');
  await idle(page);
  await speedupOf(page, 'ddp-overlap');
  expect(Number(await figure.getAttribute('data-after'))).toBeLessThan(hidden);
});

test('findings point at ops and highlight them on their timeline', async ({ page }) => {
  await openLessons(page);
  await page.getByTestId('lesson-item-pinned-vs-pageable').click();
  await speedupOf(page, 'pinned-vs-pageable');
  const findings = page.getByTestId('lesson-finding');
  expect(await findings.count()).toBeGreaterThan(0);
  const first = findings.first();
  expect(Number(await first.getAttribute('data-ops'))).toBeGreaterThan(0);
  await first.click();
  await expect(first).toHaveAttribute('aria-pressed', 'true');
  await idle(page);
  await first.click();
  await expect(first).toHaveAttribute('aria-pressed', 'false');
});

test('the issue-order lesson reverses on two copy engines and vanishes with Hyper-Q', async ({
  page,
}) => {
  await openLessons(page);
  await page.getByTestId('lesson-item-issue-order-one-engine').click();
  const onC1060 = await speedupOf(page, 'issue-order-one-engine');
  expect(onC1060).toBeGreaterThan(1 + sameTolerance);
  await page.getByTestId('lesson-profile').selectOption('c2050');
  const onC2050 = await speedupOf(page, 'issue-order-one-engine');
  expect(onC2050).toBeLessThan(1 - sameTolerance);
  await page.getByTestId('lesson-profile').selectOption('k20c');
  const onK20c = await speedupOf(page, 'issue-order-one-engine');
  expect(Math.abs(onK20c - 1)).toBeLessThanOrEqual(sameTolerance);
});

test('the workload behind a run is there to take to the editor', async ({ page }) => {
  await openLessons(page);
  await page.getByTestId('lesson-item-cuda-graphs').click();
  await speedupOf(page, 'cuda-graphs');
  await page.getByTestId('lesson-workload').locator('summary').click();
  const json = JSON.parse((await page.getByTestId('lesson-workload-json').textContent()) ?? '') as {
    name?: unknown;
  };
  expect(String(json.name)).toContain('graphs');
});

test('a lesson pair opens in the Compare view after running on the server', async ({ page }) => {
  await openLessons(page);
  await page.getByTestId('lesson-item-pinned-vs-pageable').click();
  const lessonSpeedup = await speedupOf(page, 'pinned-vs-pageable');
  await page.getByTestId('lesson-open-compare').click();
  await expect(page.getByTestId('page-compare')).toBeVisible();
  await expect(page).toHaveURL(/#\/compare\?a=.+&b=.+/);
  await idle(page);
  // The server's simulator ran the same two workloads on the same profile.
  const text = (await page.getByTestId('compare-speedup').textContent()) ?? '';
  const compared = Number(/(\d+\.\d+)×/.exec(text)?.[1]);
  expect(compared).toBeCloseTo(lessonSpeedup, 1);
});
