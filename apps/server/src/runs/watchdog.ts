import type { RunEnd, RunHandle } from '@streamscope/executor';

/**
 * Waits for a run to end. Past its time limit it is cancelled and reported as failed with the
 * reason; a run that ignores the cancel for `graceMs` more is abandoned as failed.
 */
export async function watchdog(
  handle: RunHandle,
  timeLimitMs: number,
  graceMs: number,
): Promise<RunEnd> {
  let limitTimer: NodeJS.Timeout | undefined;
  let abandonTimer: NodeJS.Timeout | undefined;
  let overLimit = false;
  const limitReason = `the run exceeded its time limit of ${timeLimitMs} ms and was stopped by the watchdog`;
  const abandoned = new Promise<RunEnd>((resolve) => {
    limitTimer = setTimeout(() => {
      overLimit = true;
      handle.cancel();
      abandonTimer = setTimeout(
        () =>
          resolve({
            status: 'failed',
            reason: `${limitReason}; it did not stop within ${graceMs} ms`,
          }),
        graceMs,
      );
    }, timeLimitMs + graceMs);
  });
  try {
    const end = await Promise.race([handle.done, abandoned]);
    return overLimit && end.status === 'cancelled'
      ? { status: 'failed', reason: limitReason }
      : end;
  } finally {
    clearTimeout(limitTimer);
    clearTimeout(abandonTimer);
  }
}
