import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, idle, test } from './fixtures.ts';

// Traces as people have them, recorded on the H200: a PyTorch trace with every profiler option
// (Python frames, allocator events, a CUDA graph replay) and a JAX profile (XLA's own format),
// each uploaded on the Import page and opened in the trace view.

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

interface TraceEntry {
  readonly id: string;
  readonly title: string;
  readonly fileName?: string;
}

interface RowProbe {
  readonly kind: string;
  readonly label: string;
}

/** Uploads `file` on the Import page and returns its stored entry. */
async function upload(page: Page, request: APIRequestContext, file: string): Promise<TraceEntry> {
  await page.goto('/#/import');
  await idle(page);
  await page.getByTestId('import-file-input').setInputFiles(path.join(fixtures, file));
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
  const entries = (await (await request.get('/api/traces')).json()) as TraceEntry[];
  const entry = entries.find((e) => e.fileName === path.basename(file));
  expect(entry).toBeDefined();
  return entry!;
}

async function rowLabels(page: Page): Promise<string[]> {
  const rows = await page.evaluate(() => {
    const hooks = window as unknown as { __timelineRows: (id: string) => RowProbe[] };
    return hooks.__timelineRows('timeline');
  });
  return rows.map((r) => r.label);
}

test('a PyTorch trace recorded with_stack shows its Python frames and says what it does not draw', async ({
  page,
  request,
}) => {
  const entry = await upload(page, request, 'kineto/full.pt.trace.json.gz');
  await expect(page.getByTestId('import-warnings')).toContainText(
    'not drawn: 140 allocator events of profile_memory ([memory] instants)',
  );
  await page.getByTestId('open-imported').click();
  await idle(page);
  expect((await rowLabels(page)).some((l) => l.includes('Python'))).toBe(true);
  await request.delete(`/api/traces/${entry.id}`);
});

test("a JAX profile's launches lead to their kernels", async ({ page, request }) => {
  const entry = await upload(page, request, 'chrome/jax-h200.trace.json.gz');
  await expect(page.getByTestId('import-warnings')).toHaveCount(0);
  await page.getByTestId('open-imported').click();
  await idle(page);
  const labels = await rowLabels(page);
  expect(labels).toEqual(
    // Its two threads named python3, told apart by tid.
    expect.arrayContaining(['GPU 0', 'Stream 14', 'Stream 19', 'python3 (tid 3135229742)']),
  );
  // Its host rows hold XLA's own events, not NVTX ranges.
  expect(labels).toContain('Ranges');
  expect(labels).not.toContain('NVTX');
  // The 4 tanh kernels and their launches, named alike: the first found is a launch, and its
  // details lead to the kernel it launched.
  const input = page.getByTestId('search-input');
  await input.fill('wrapped_tanh');
  await idle(page);
  await expect(page.getByTestId('search-count')).toHaveText('8 matches');
  await input.press('Enter');
  await idle(page);
  await expect(page.getByTestId('details-flows')).toContainText('→ to wrapped_tanh');
  await expect(page.getByTestId('details-flows')).toContainText('Stream 14');
  await request.delete(`/api/traces/${entry.id}`);
});

test('a DDP job on two GPUs, both ranks chosen together, shows its communication overlapping compute', async ({
  page,
  request,
}) => {
  await page.goto('/#/import');
  await idle(page);
  await page
    .getByTestId('import-file-input')
    .setInputFiles(
      [0, 1].map((r) => path.join(fixtures, `kineto/ddp2gpu-rank${r}.pt.trace.json.gz`)),
    );
  await expect(page.getByTestId('import-done')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('open-imported').click();
  await idle(page);
  const labels = await rowLabels(page);
  expect(labels.filter((l) => /^rank [01]/.test(l))).toHaveLength(2);
  // DDP all-reduces each gradient bucket while backward goes on: 79.1% when recorded.
  await expect(page.getByTestId('metric-comm-overlap')).toHaveText(
    /^79\.1% \(exposed 3\.8\d* ms\)$/,
    {
      timeout: 30_000,
    },
  );
  // Each rank's steps, told apart by their rank (both ranks name theirs ProfilerStep#1..3).
  const steps = await page.getByTestId('step-row').allInnerTexts();
  expect(steps.length).toBeGreaterThan(1);
  for (const step of steps) {
    expect(step).toMatch(/^ProfilerStep#\d+ · rank [01]\t/);
  }
  expect(new Set(steps.map((s) => /rank (\d)/.exec(s)![1]))).toEqual(new Set(['0', '1']));
  const entries = (await (await request.get('/api/traces')).json()) as TraceEntry[];
  // The two files and the trace they open as together.
  const ddp = (e: TraceEntry): boolean =>
    e.fileName?.startsWith('ddp2gpu') === true || e.title.includes('ddp2gpu-rank0');
  for (const e of entries.filter(ddp)) {
    await request.delete(`/api/traces/${e.id}`);
  }
});
