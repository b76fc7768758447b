import { expect, idle, rendererStats, test, viewSpanNs } from './fixtures.ts';

// Issue #21, "fit to GPU activity": an import opens on the span from its first GPU op to its
// last, not on the whole trace where host-only time leaves the GPU work a sliver; "Fit all"
// still shows everything.
// The case: 380 ms of host work around a 2.26 ms kernel (a kineto trace, times in µs).
const kernel = { tsUs: 100_000, durUs: 2_260 };
const hostOnly = JSON.stringify({
  schemaVersion: 1,
  traceEvents: [
    { ph: 'X', cat: 'cpu_op', name: 'aten::train_step', pid: 7, tid: 7, ts: 0, dur: 380_000 },
    {
      ph: 'X',
      cat: 'cuda_runtime',
      name: 'cudaLaunchKernel',
      pid: 7,
      tid: 7,
      ts: kernel.tsUs - 10,
      dur: 8,
      args: { correlation: 5 },
    },
    {
      ph: 'X',
      cat: 'kernel',
      name: 'gemm_kernel',
      pid: 0,
      tid: 'stream 7',
      ts: kernel.tsUs,
      dur: kernel.durUs,
      args: { correlation: 5, device: 0, stream: 7 },
    },
  ],
});

test('an import opens fitted to its GPU activity; Fit all shows the whole trace', async ({
  page,
  request,
}) => {
  const uploaded = await request.put('/api/imports?filename=host-only.pt.trace.json', {
    data: hostOnly,
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  const entry = (await uploaded.json()) as { id: string; spanNs: number };
  await page.goto(`/#/trace/${entry.id}`);
  await idle(page);
  const opened = (await rendererStats(page, 'timeline'))!;
  const gpuSpanNs = opened.viewEndNs - opened.viewStartNs;
  // The kernel's 2.26 ms with 2% of air on each side, starting 100 ms into the trace.
  expect(entry.spanNs).toBe(380_000_000);
  expect(gpuSpanNs).toBeCloseTo(2_260_000 * 1.04, 0);
  expect(opened.viewStartNs).toBeCloseTo(100_000_000 - 2_260_000 * 0.02, 0);

  // Fit all: [0, span] with 2% of air on each side.
  await page.getByTestId('fit-all').click();
  await idle(page);
  const all = (await rendererStats(page, 'timeline'))!;
  expect(all.viewStartNs).toBeCloseTo(-entry.spanNs * 0.02, 0);
  expect(all.viewEndNs).toBeCloseTo(entry.spanNs * 1.02, 0);

  // Fit comes back to the GPU's span, wherever the view was.
  await page.getByTestId('fit').click();
  await idle(page);
  const refit = (await rendererStats(page, 'timeline'))!;
  expect(refit.viewStartNs).toBe(opened.viewStartNs);
  expect(refit.viewEndNs).toBe(opened.viewEndNs);
  // The GPU ops are drawn: the fitted window is not empty host time.
  expect(refit.drawnOps).toBeGreaterThan(0);
  expect(await viewSpanNs(page, 'timeline')).toBe(gpuSpanNs);
  await request.delete(`/api/traces/${entry.id}`);
});
