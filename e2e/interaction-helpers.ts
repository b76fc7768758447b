import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

/** An op as the app's test hook reports it (apps/web/src/test-mode/op-probe.ts). */
export interface OpProbe {
  readonly op: number;
  readonly name: string;
  readonly kind: string;
  readonly track: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly xPx: number;
  readonly yPx: number;
}

export interface SelectionProbe {
  readonly selectedOp: number | null;
  readonly opSet: readonly number[];
  readonly opSetIndex: number;
  readonly traceSpanNs: number;
}

/** Uploads a recorded run from fixtures/runs through the API and returns its trace id. */
export async function uploadRun(request: APIRequestContext, name: string): Promise<string> {
  const file = fileURLToPath(new URL(`../fixtures/runs/${name}`, import.meta.url));
  const uploaded = await request.put(`/api/imports?filename=${name}`, {
    data: await readFile(file),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(uploaded.status()).toBe(201);
  return ((await uploaded.json()) as { id: string }).id;
}

/** Ops of the open trace with their times and centres on the main timeline. */
export async function probeOps(page: Page, ops: readonly number[]): Promise<OpProbe[]> {
  return page.evaluate((list) => {
    const hooks = window as unknown as {
      __ops: (view: string, ops: readonly number[]) => OpProbe[];
    };
    return hooks.__ops('timeline', list);
  }, ops);
}

export async function selection(page: Page): Promise<SelectionProbe> {
  return page.evaluate(() =>
    (window as unknown as { __selection: () => SelectionProbe }).__selection(),
  );
}

interface LiveOpsWindow {
  __seenLiveOps?: number[];
  __rendererStats?: () => Record<string, { traceOps: number }>;
}

/** Starts recording every op count the Run page's live timeline draws, frame by frame. */
export async function recordLiveOps(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as LiveOpsWindow;
    w.__seenLiveOps = [];
    const tick = (): void => {
      const ops = w.__rendererStats?.()['live-timeline']?.traceOps;
      if (ops !== undefined && w.__seenLiveOps!.at(-1) !== ops) {
        w.__seenLiveOps!.push(ops);
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** The op counts `recordLiveOps` saw, in order. */
export function seenLiveOps(page: Page): Promise<number[]> {
  return page.evaluate(() => (window as unknown as LiveOpsWindow).__seenLiveOps ?? []);
}
