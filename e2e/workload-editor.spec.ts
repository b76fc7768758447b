import { expect, idle, rendererStats, test } from './fixtures.ts';

interface EditorOp {
  op: string;
  name?: string;
  count?: number;
  ops?: EditorOp[];
}
interface EditorSpec {
  threads: { ops: EditorOp[] }[];
}

test("a lesson's workload opens in the Run editor, takes an edit and runs on the simulator", async ({
  page,
}) => {
  await page.goto('/#/lessons/pinned-vs-pageable');
  const lesson = page.getByTestId('lesson-pinned-vs-pageable');
  await expect(lesson).toHaveAttribute('data-status', 'ready');
  // A profile other than the simulator's default, so the Run page must have taken it over.
  await page.getByTestId('lesson-profile').selectOption('c2050');
  await idle(page);
  await expect(lesson).toHaveAttribute('data-status', 'ready');
  const shown = await page.getByTestId('lesson-workload-json').textContent();

  await page.getByTestId('lesson-workload').locator('summary').click();
  await page.getByTestId('lesson-workload-open').click();
  await expect(page).toHaveURL(/#\/run$/);
  await idle(page);
  const editor = page.getByTestId('workload-editor');
  await expect(page.getByTestId('mode-workload')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('workload-origin')).toContainText('after run, c2050');
  const text = await editor.inputValue();
  expect(JSON.parse(text)).toEqual(JSON.parse(shown ?? ''));
  await expect(page.getByTestId('backend-select')).toHaveValue('sim');
  await expect(page.getByTestId('target-select')).toHaveValue('c2050');

  // The edit: two chunks instead of four, and the kernels renamed so the run shows whose it is.
  const spec = JSON.parse(text) as EditorSpec;
  const loop = spec.threads[0]!.ops.find((op) => op.op === 'repeat')!;
  expect(loop.count).toBe(4);
  loop.count = 2;
  const kernel = loop.ops!.find((op) => op.op === 'kernel')!;
  kernel.name = 'edited[{i}]';
  await editor.fill(JSON.stringify(spec, null, 2));
  await expect(page.getByTestId('workload-validity')).toHaveText('valid');

  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'finished', {
    timeout: 30_000,
  });
  await idle(page);
  const live = await rendererStats(page, 'live-timeline');
  expect(live?.drawnOps).toBeGreaterThan(0);

  // The run is the edited workload: its two renamed kernels are found in the trace view.
  await page.getByTestId('open-run-trace').click();
  await idle(page);
  await expect(page.getByTestId('trace-op-total')).toHaveText(
    live!.traceOps.toLocaleString('en-US'),
  );
  await page.getByTestId('search-input').fill('edited');
  await page.getByTestId('search-input').press('Enter');
  await idle(page);
  await expect(page.getByTestId('search-count')).toHaveText('1 of 2');
  expect((await rendererStats(page, 'timeline'))?.drawnOps).toBeGreaterThan(0);
});

test('the Run editor loads a preset with the parameters picked for it', async ({ page }) => {
  await page.goto('/#/run');
  await idle(page);
  await page.getByTestId('preset-select').selectOption('overlap-blog');
  await page.getByTestId('param-variant').selectOption('depth-first');
  await page.getByTestId('param-streams').fill('2');
  await page.getByTestId('preset-to-editor').click();
  await expect(page.getByTestId('mode-workload')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('workload-origin')).toContainText(
    'preset overlap-blog (variant=depth-first, streams=2, size=16MiB)',
  );
  const depthFirst = JSON.parse(await page.getByTestId('workload-editor').inputValue()) as {
    name: string;
    streams: { count: number }[];
  };
  expect(depthFirst.name).toContain('depth-first');
  expect(depthFirst.streams[0]?.count).toBe(2);
  await expect(page.getByTestId('workload-validity')).toHaveText('valid');

  // From the editor's own loader: the breadth-first variant replaces the text.
  await page.getByTestId('preset-loader').locator('summary').click();
  await page.getByTestId('param-variant').selectOption('breadth-first');
  await page.getByTestId('load-preset').click();
  const breadthFirst = JSON.parse(await page.getByTestId('workload-editor').inputValue()) as {
    name: string;
  };
  expect(breadthFirst.name).toContain('breadth-first');
  await expect(page.getByTestId('workload-validity')).toHaveText('valid');
  await page.getByTestId('backend-select').selectOption('sim');
  await page.getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'finished', {
    timeout: 30_000,
  });
  await idle(page);
  expect((await rendererStats(page, 'live-timeline'))?.drawnOps).toBeGreaterThan(0);
});
