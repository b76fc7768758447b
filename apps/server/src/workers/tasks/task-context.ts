import type { FromWorker } from '../protocol.ts';

/** What a task running in a worker thread can use of the thread around it. */
export interface TaskContext {
  readonly taskId: number;
  readonly signal: AbortSignal;
  send(message: FromWorker, transfer?: readonly ArrayBuffer[]): void;
  /** Waits until the event loop may take another export chunk (returns at once when aborted). */
  credit(): Promise<void>;
  /** A chunk's memory the event loop has given back, if any is spare. */
  spareBuffer(): ArrayBuffer | undefined;
  /**
   * Notes what the thread holds now, while the task's big data is alive: a thread that held
   * more than the pool keeps is retired when the task ends (what it holds then can read low).
   */
  notePeakMemory(): void;
}

/** A task's result and the buffers to transfer with it rather than copy. */
export interface TaskResult {
  readonly result: unknown;
  readonly transfer?: readonly ArrayBuffer[];
}

/** Throws the abort reason once the task is aborted. */
export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) {
    throw signal.reason instanceof Error ? signal.reason : new Error('the task was cancelled');
  }
}
