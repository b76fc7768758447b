import type { Trace } from '@streamscope/trace';
import type { RunEnd, RunHandle } from './backend.ts';

/**
 * The RunHandle every backend returns: listeners notified (coalesced to one call per macrotask)
 * after the trace grew, one end that settles `done` exactly once, and a cancel hook.
 */
export class LiveRun implements RunHandle {
  readonly done: Promise<RunEnd>;
  private readonly listeners = new Set<() => void>();
  private notifyScheduled = false;
  private settle!: (end: RunEnd) => void;
  private endValue: RunEnd | undefined;
  private cancelHook: () => void = () => undefined;

  constructor(readonly trace: Trace) {
    this.done = new Promise<RunEnd>((resolve) => {
      this.settle = resolve;
    });
  }

  get ended(): RunEnd | undefined {
    return this.endValue;
  }

  onUpdate(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** The backend's way to stop the run; called at most once, and never after the end. */
  setCancel(hook: () => void): void {
    this.cancelHook = hook;
  }

  cancel(): void {
    if (this.endValue === undefined) {
      const hook = this.cancelHook;
      this.cancelHook = () => undefined;
      hook();
    }
  }

  /** Tells listeners the trace grew; several calls in one macrotask make one notification. */
  grew(): void {
    if (this.notifyScheduled || this.endValue !== undefined) {
      return;
    }
    this.notifyScheduled = true;
    setImmediate(() => {
      this.notifyScheduled = false;
      this.emit();
    });
  }

  /** Ends the run (first call wins); listeners get a final notification first. */
  finish(end: RunEnd): void {
    if (this.endValue !== undefined) {
      return;
    }
    this.emit();
    this.endValue = end;
    this.cancelHook = () => undefined;
    this.settle(end);
  }

  private emit(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A failing listener must not end the run or starve the others.
      }
    }
  }
}
