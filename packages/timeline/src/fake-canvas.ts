import type { FrameClock } from './scheduler.ts';

/**
 * A recording stand-in for a canvas and its 2D context, so the view runs in node tests.
 * Test-only: not exported from the package.
 */
export interface FakeCanvas {
  readonly canvas: HTMLCanvasElement;
  readonly calls: { fillRect: number; fillText: string[]; stroke: number };
}

export function fakeCanvas(widthPx = 1000, heightPx = 600): FakeCanvas {
  const calls = { fillRect: 0, fillText: [] as string[], stroke: 0 };
  const ctx = {
    fillStyle: '',
    strokeStyle: '',
    lineWidth: 1,
    font: '',
    textAlign: 'left',
    textBaseline: 'alphabetic',
    setTransform: () => undefined,
    fillRect: () => {
      calls.fillRect++;
    },
    strokeRect: () => {
      calls.stroke++;
    },
    beginPath: () => undefined,
    moveTo: () => undefined,
    lineTo: () => undefined,
    quadraticCurveTo: () => undefined,
    closePath: () => undefined,
    rect: () => undefined,
    clip: () => undefined,
    fill: () => undefined,
    stroke: () => {
      calls.stroke++;
    },
    save: () => undefined,
    restore: () => undefined,
    fillText: (text: string) => {
      calls.fillText.push(text);
    },
  };
  const canvas = {
    width: widthPx,
    height: heightPx,
    clientWidth: widthPx,
    clientHeight: heightPx,
    getContext: (kind: string) => (kind === '2d' ? ctx : null),
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    toBlob: (callback: (blob: Blob | null) => void) =>
      callback(new Blob(['png'], { type: 'image/png' })),
  };
  return { canvas: canvas as unknown as HTMLCanvasElement, calls };
}

/** A frame clock the test advances by hand. */
export function manualClock(): {
  readonly clock: FrameClock;
  readonly tick: () => number;
} {
  let pending = new Map<number, () => void>();
  let next = 1;
  return {
    clock: {
      request: (cb) => {
        pending.set(next, cb);
        return next++;
      },
      cancel: (h) => {
        pending.delete(h);
      },
    },
    tick: () => {
      const run = pending;
      pending = new Map();
      for (const cb of run.values()) {
        cb();
      }
      return run.size;
    },
  };
}
