/** Coalesces update notifications into frames at most every `minIntervalMs`. */
export class FrameFlusher {
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private lastMs = -Infinity;

  constructor(
    private readonly flush: () => void,
    private readonly minIntervalMs: number,
  ) {}

  request(): void {
    if (this.timer !== undefined || this.immediate !== undefined) {
      return;
    }
    const waitMs = this.lastMs + this.minIntervalMs - performance.now();
    if (waitMs > 0) {
      this.timer = setTimeout(() => this.flushNow(), waitMs);
    } else {
      this.immediate = setImmediate(() => this.flushNow());
    }
  }

  flushNow(): void {
    this.dispose();
    this.lastMs = performance.now();
    this.flush();
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }
}
