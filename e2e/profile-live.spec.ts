import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, idle, rendererStats, test } from './fixtures.ts';

// `streamscope profile -- CMD` prints a dashboard link at once; that link must follow the
// program live. A stand-in program (apps/server/scripts/fake-profile.ts) speaks the collector
// channel as the CLI and one collector process do: frames of 20 kernels, 20 API calls and a
// range each, then it runs on until Stop, which it answers as a program that caught SIGINT.

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const producerScript = 'apps/server/scripts/fake-profile.ts';
const frames = 12;
const opsPerFrame = 40; // 20 API calls and their 20 kernels

interface LiveWindow {
  __seenProfileOps?: number[];
  __rendererStats?: () => Record<string, { traceOps: number }>;
}

/** Starts the stand-in program against the e2e server; resolves with its run's link. */
async function startProgram(
  baseURL: string,
  intervalMs: number,
): Promise<{ child: ChildProcessWithoutNullStreams; url: string; lines: string[] }> {
  const target = baseURL.replace(/^http/, 'ws');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', producerScript, target, String(frames), String(intervalMs), 'hold'],
    { cwd: repoRoot },
  );
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout });
  const first = new Promise<string>((resolve, reject) => {
    reader.on('line', (line) => {
      lines.push(line);
      if (lines.length === 1) {
        resolve(line);
      }
    });
    child.once('exit', (code) => reject(new Error(`the stand-in program exited with ${code}`)));
  });
  const { url } = JSON.parse(await first) as { url: string };
  return { child, url, lines };
}

test('the link of a profiled program follows it live, and Stop ends it keeping what arrived', async ({
  page,
  baseURL,
}) => {
  const program = await startProgram(baseURL!, 250);
  try {
    // The link as the CLI prints it, opened while the program runs.
    const link = new URL(program.url);
    expect(link.hash).toMatch(/^#\/trace\/[A-Za-z0-9_-]+$/);
    await page.addInitScript(() => {
      const w = window as unknown as LiveWindow;
      w.__seenProfileOps = [];
      const tick = (): void => {
        const ops = w.__rendererStats?.()['timeline']?.traceOps;
        if (ops !== undefined && w.__seenProfileOps!.at(-1) !== ops) {
          w.__seenProfileOps!.push(ops);
        }
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    await page.goto(`/${link.hash}`);
    await expect(page.getByTestId('run-state')).toHaveText('running');
    await expect(page.getByTestId('cancel-run')).toHaveText('Stop');

    // Every frame arrives while the program is still running, and the Gantt grows with them.
    const all = frames * opsPerFrame;
    await expect
      .poll(async () => (await rendererStats(page, 'timeline'))?.traceOps, { timeout: 30_000 })
      .toBe(all);
    await expect(page.getByTestId('run-state')).toHaveText('running');
    const seen = await page.evaluate(
      () => (window as unknown as LiveWindow).__seenProfileOps ?? [],
    );
    expect(seen.filter((n) => n > 0 && n < all).length).toBeGreaterThanOrEqual(2);
    expect((await rendererStats(page, 'timeline'))?.drawnOps).toBeGreaterThan(0);

    // Stop: the program gets its SIGINT (the stand-in sends what it holds and exits 130).
    await page.getByTestId('cancel-run').click();
    await expect(page.getByTestId('run-state')).toHaveText('cancelled', { timeout: 30_000 });
    await idle(page);
    await expect.poll(() => program.lines.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(program.lines[1]!)).toMatchObject({
      type: 'ended',
      status: 'cancelled',
      opCount: all,
    });
    // The view is now the stored trace: the list shows it cancelled with every op kept.
    const runId = link.hash.split('/').at(-1)!;
    const stored = (await (await page.request.get(`/api/traces/${runId}`)).json()) as {
      status: string;
      opCount: number;
    };
    expect(stored).toMatchObject({ status: 'cancelled', opCount: all });
    expect((await rendererStats(page, 'timeline'))?.traceOps).toBe(all);
    // The findings come in for what was kept.
    await expect(page.getByTestId('metric-makespan')).toBeVisible();
  } finally {
    program.child.kill();
  }
});

test('a live profile in the dashboard (the README picture)', async ({ page, baseURL }) => {
  // Every frame at once, then the program runs on: what is drawn no longer changes.
  const program = await startProgram(baseURL!, 0);
  try {
    await page.goto(`/${new URL(program.url).hash}`);
    await expect
      .poll(async () => (await rendererStats(page, 'timeline'))?.traceOps, { timeout: 30_000 })
      .toBe(frames * opsPerFrame);
    await expect(page.getByTestId('run-state')).toHaveText('running');
    await expect(page.getByTestId('page-trace')).toHaveScreenshot('profile-live.png', {
      animations: 'disabled',
      caret: 'hide',
      maxDiffPixels: 0,
    });
    await page.getByTestId('cancel-run').click();
    await expect(page.getByTestId('run-state')).toHaveText('cancelled', { timeout: 30_000 });
  } finally {
    program.child.kill();
  }
});
