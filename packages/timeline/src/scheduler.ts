/** How the scheduler asks for a frame; `requestAnimationFrame` in a browser, injectable in tests. */
export interface FrameClock {
  request(callback: () => void): number;
  cancel(handle: number): void;
}

export const animationFrameClock: FrameClock = {
  request: (callback) => requestAnimationFrame(() => callback()),
  cancel: (handle) => cancelAnimationFrame(handle),
};

/**
 * The one redraw scheduler of a view: any number of `requestRedraw` calls before the next frame
 * collapse into one draw (STYLE.md B.4: nothing else draws the canvas).
 */
export class RedrawScheduler {
  private pending: number | undefined;
  private disposed = false;

  constructor(
    private readonly clock: FrameClock,
    private readonly draw: () => void,
  ) {}

  get isPending(): boolean {
    return this.pending !== undefined;
  }

  requestRedraw(): void {
    if (this.pending !== undefined || this.disposed) {
      return;
    }
    this.pending = this.clock.request(() => {
      this.pending = undefined;
      if (!this.disposed) {
        this.draw();
      }
    });
  }

  /** Draws now, cancelling a pending frame (exports and benchmarks). */
  flush(): void {
    if (this.pending !== undefined) {
      this.clock.cancel(this.pending);
      this.pending = undefined;
    }
    if (!this.disposed) {
      this.draw();
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.pending !== undefined) {
      this.clock.cancel(this.pending);
      this.pending = undefined;
    }
  }
}
