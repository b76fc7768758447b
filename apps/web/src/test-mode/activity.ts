/**
 * Counts work in flight (fetches, uploads, worker jobs, frames) so tests and benchmarks can wait
 * for the app to settle instead of sleeping. Cheap enough to run always; only exposed on window
 * in test mode (see install-test-hooks.ts).
 */
let pending = 0;
let lastActivityMs = 0;

function now(): number {
  return performance.now();
}

/** Marks one job as started; call the returned function exactly once when it ends. */
export function beginActivity(): () => void {
  pending++;
  lastActivityMs = now();
  let done = false;
  return () => {
    if (done) {
      return;
    }
    done = true;
    pending--;
    lastActivityMs = now();
  };
}

/** Something happened that may cause more work soon (a ws message, a store change). */
export function touchActivity(): void {
  lastActivityMs = now();
}

/** Wraps a promise so it counts as pending work until it settles. */
export function trackPromise<T>(promise: Promise<T>): Promise<T> {
  const end = beginActivity();
  return promise.finally(end);
}

const idleProbes = new Set<() => boolean>();

/** Registers a check that must report true before the app counts as idle (a canvas frame pending). */
export function addIdleProbe(probe: () => boolean): () => void {
  idleProbes.add(probe);
  return () => {
    idleProbes.delete(probe);
  };
}

function probesIdle(): boolean {
  for (const probe of idleProbes) {
    if (!probe()) {
      return false;
    }
  }
  return true;
}

export function pendingActivity(): number {
  return pending;
}

export function quietForMs(): number {
  return now() - lastActivityMs;
}

function nextFrame(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => resolve()));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves once nothing has been pending and nothing has happened for `quietMs`, and two
 * animation frames have passed (so a frame the renderer requested has been drawn).
 */
export async function waitForIdle(quietMs = 100, timeoutMs = 30_000): Promise<void> {
  const deadline = now() + timeoutMs;
  for (;;) {
    await nextFrame();
    await nextFrame();
    if (pending === 0 && quietForMs() >= quietMs && probesIdle()) {
      return;
    }
    if (now() > deadline) {
      throw new Error(`app not idle after ${timeoutMs} ms (${pending} jobs pending)`);
    }
    await delay(Math.max(10, quietMs - quietForMs()));
  }
}
