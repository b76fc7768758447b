import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../http/api-error.ts';
import type { FromWorker, ToWorker, WorkerTask } from './protocol.ts';
import { fromWorkerError } from './protocol.ts';
import type { ThreadScript } from './thread-script.ts';
import { threadScript } from './thread-script.ts';

export interface WorkerPoolOptions {
  /** Worker threads at most; os.availableParallelism() by default (at least 1). */
  readonly size?: number;
  /** Tasks that may wait for a worker; more are refused with a 503. Four per worker by default. */
  readonly maxQueued?: number;
  /** A worker idle this long is ended (it is started again when work comes). */
  readonly idleMs?: number;
  /** A worker that has not stopped this long after an abort is terminated. */
  readonly abortGraceMs?: number;
  /**
   * Workers started with the pool and kept when idle, so the first task does not wait for a
   * thread to start and load its modules (about a second under tsx). 1 by default.
   */
  readonly warmWorkers?: number;
  /**
   * How much nicer than the event loop the worker threads run (Linux; 0 to 19, added to the
   * loop's own niceness and capped at 19), so the loop gets a core first whenever it has
   * something to answer. 2 by default: the loop's weight is 1.6 times a worker's, and a worker
   * still gets its share of a machine that other processes load (at +10 a worker got about a
   * tenth of a nice-0 process's share, and a server upload of an nsys SQLite export took 1.8
   * to 3 times the CLI's import of the same file on a loaded host).
   */
  readonly niceness?: number;
  /**
   * A worker whose memory (its heap as V8 keeps it, plus its ArrayBuffers) is above this when a
   * task ends is retired before the task's answer is given: a fresh worker takes its place, so a
   * big import or analysis leaves nothing of its memory behind. 128 MiB by default, about four
   * times an idle worker's (34 MiB under tsx).
   */
  readonly retireHeapBytes?: number;
  /**
   * The most memory the tasks that say what they need (`TaskHandlers.memoryBytes`) may hold at
   * once: one that would pass it waits for the others to end (a task that needs more than all of
   * it runs alone). Unlimited by default; the server gives 80% of the machine's memory, so two
   * analyses of a 176M-op trace (23 GB each) take turns instead of ending the process.
   */
  readonly memoryBudgetBytes?: number;
  /** What the threads start on (default: worker-main through tsx, or beside a bundle). */
  readonly script?: ThreadScript;
}

export interface TaskHandlers {
  readonly signal?: AbortSignal;
  /**
   * How long the task may run once a worker has it (waiting for one does not count); past it,
   * it is aborted as with `signal`, with an error named 'TimeoutError'.
   */
  readonly runLimitMs?: number;
  /** The memory the task may reach, when it is known (a whole trace decoded: its ops times a measured peak). */
  readonly memoryBytes?: number;
  /** Everything the task's worker says before it ends (progress, stages, export chunks). */
  readonly onMessage?: (
    message: FromWorker,
    reply: (message: ToWorker, transfer?: readonly ArrayBuffer[]) => void,
  ) => void;
}

interface Job {
  readonly taskId: number;
  readonly task: WorkerTask;
  readonly handlers: TaskHandlers;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
  settled: boolean;
  dropAbort?: () => void;
  limitTimer?: NodeJS.Timeout;
}

interface Slot {
  readonly worker: Worker;
  job?: Job;
  idleTimer?: NodeJS.Timeout;
  abortTimer?: NodeJS.Timeout;
}

// The worker entry: worker-main.ts through tsx's bootstrap, or worker-main.mjs in a bundle.
const defaultWorkerScript = threadScript('worker-main', import.meta.url);

/**
 * A few worker threads for the work that would block the event loop: expanding workloads,
 * parsing imports, analysis and export. One task per worker at a time; tasks beyond the workers
 * wait in a bounded queue, and a full queue refuses with a 503 that says so. Workers start when
 * work comes and end when idle, and never keep the process alive while idle.
 */
export class WorkerPool {
  readonly size: number;
  readonly maxQueued: number;
  private readonly idleMs: number;
  private readonly abortGraceMs: number;
  private readonly warmWorkers: number;
  private readonly niceness: number;
  private readonly retireHeapBytes: number;
  readonly memoryBudgetBytes: number;
  private readonly script: ThreadScript;
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextTaskId = 1;
  private closed = false;
  private retired = 0;

  constructor(options: WorkerPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? os.availableParallelism()));
    this.maxQueued = Math.max(0, Math.floor(options.maxQueued ?? 4 * this.size));
    this.idleMs = options.idleMs ?? 30_000;
    this.abortGraceMs = options.abortGraceMs ?? 1_000;
    this.warmWorkers = Math.min(this.size, Math.max(0, Math.floor(options.warmWorkers ?? 1)));
    this.niceness = Math.min(19, Math.max(0, Math.floor(options.niceness ?? 2)));
    this.retireHeapBytes = options.retireHeapBytes ?? 128 * 2 ** 20;
    this.memoryBudgetBytes = options.memoryBudgetBytes ?? Number.POSITIVE_INFINITY;
    this.script = options.script ?? defaultWorkerScript;
    this.keepWarm();
  }

  /** Runs a task on a worker; resolves with what it returns, or rejects with what it threw. */
  run(task: WorkerTask, handlers: TaskHandlers = {}): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new Error('the worker pool is closed'));
        return;
      }
      const { signal } = handlers;
      if (signal?.aborted === true) {
        reject(abortError(signal));
        return;
      }
      const job: Job = {
        taskId: this.nextTaskId++,
        task,
        handlers,
        resolve,
        reject,
        settled: false,
      };
      // Queued, then started by the one rule that starts every task (`nextStartable`).
      this.queue.push(job);
      this.dispatch();
      if (this.queue.length > this.maxQueued && this.queue.at(-1) === job) {
        this.queue.pop();
        const waiting = this.queue.length;
        reject(
          new ApiError(
            503,
            'busy',
            this.mayHaveSlot()
              ? `the tasks running hold the memory this one needs and ${waiting} tasks already wait; try again shortly`
              : `all ${this.size} worker threads are busy and ${waiting} tasks already wait for one; try again shortly`,
          ),
        );
        return;
      }
      if (signal !== undefined) {
        const onAbort = (): void => this.abort(job, abortError(signal));
        signal.addEventListener('abort', onAbort, { once: true });
        job.dropAbort = () => signal.removeEventListener('abort', onAbort);
      }
    });
  }

  /**
   * Workers running, those busy with a task, tasks waiting, workers retired for their size, and
   * the memory the running tasks said they need.
   */
  stats(): {
    readonly workers: number;
    readonly busy: number;
    readonly queued: number;
    readonly retired: number;
    readonly heldMemoryBytes: number;
  } {
    let busy = 0;
    for (const slot of this.slots) {
      busy += slot.job === undefined ? 0 : 1;
    }
    return {
      workers: this.slots.size,
      busy,
      queued: this.queue.length,
      retired: this.retired,
      heldMemoryBytes: this.heldMemoryBytes(),
    };
  }

  /** What the tasks on workers said they need; a stopped task's until its worker lets it go. */
  private heldMemoryBytes(): number {
    let held = 0;
    for (const slot of this.slots) {
      held += slot.job?.handlers.memoryBytes ?? 0;
    }
    return held;
  }

  /** Whether `job` may start beside the running tasks (alone, it always may). */
  private fitsMemory(job: Job): boolean {
    if (!needsMemory(job)) {
      return true;
    }
    const held = this.heldMemoryBytes();
    return held === 0 || held + job.handlers.memoryBytes! <= this.memoryBudgetBytes;
  }

  /** Refuses new tasks, fails waiting ones and ends every worker. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      this.settle(job, () => job.reject(new Error('the worker pool closed')));
    }
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  /** Whether a worker is idle or one more may be started. */
  private mayHaveSlot(): boolean {
    return this.slots.size < this.size || [...this.slots].some((slot) => slot.job === undefined);
  }

  private freeSlot(): Slot | undefined {
    for (const slot of this.slots) {
      if (slot.job === undefined) {
        return slot;
      }
    }
    return this.slots.size < this.size ? this.spawn() : undefined;
  }

  private spawn(): Slot {
    const worker = new Worker(this.script.url, {
      workerData: { entry: this.script.entry, niceness: this.niceness },
    });
    const slot: Slot = { worker };
    this.slots.add(slot);
    worker.on('message', (message: FromWorker) => this.onMessage(slot, message));
    worker.on('error', (error) => {
      const job = slot.job;
      if (job !== undefined) {
        this.settle(job, () => job.reject(new Error(`a worker thread failed: ${error.message}`)));
      }
    });
    worker.on('exit', (code) => {
      this.slots.delete(slot);
      clearTimeout(slot.idleTimer);
      clearTimeout(slot.abortTimer);
      const job = slot.job;
      if (job !== undefined) {
        this.settle(job, () =>
          job.reject(new Error(`the worker thread running it stopped (exit code ${code})`)),
        );
      }
      this.dispatch();
      this.keepWarm();
    });
    // Idle until it runs a task: an idle worker never keeps the process alive.
    worker.unref();
    return slot;
  }

  /** Starts idle workers up to the warm count. */
  private keepWarm(): void {
    while (!this.closed && this.slots.size < this.warmWorkers) {
      this.spawn();
    }
  }

  private start(slot: Slot, job: Job): void {
    clearTimeout(slot.idleTimer);
    slot.job = job;
    slot.worker.ref();
    const limitMs = job.handlers.runLimitMs;
    if (limitMs !== undefined) {
      job.limitTimer = setTimeout(() => {
        const error = new Error(`the task ran past its limit of ${limitMs} ms`);
        error.name = 'TimeoutError';
        this.abort(job, error);
      }, limitMs);
    }
    this.post(slot, { type: 'run', taskId: job.taskId, task: job.task });
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    const job = slot.job;
    if (job === undefined || message.taskId !== job.taskId) {
      return;
    }
    if (message.type === 'done' || message.type === 'failed') {
      const answer = (): void =>
        this.settle(job, () =>
          message.type === 'done'
            ? job.resolve(message.result)
            : job.reject(fromWorkerError(message.error)),
        );
      if (message.heapBytes > this.retireHeapBytes) {
        this.retire(slot, answer);
      } else {
        answer();
        this.release(slot);
      }
      return;
    }
    if (!job.settled) {
      job.handlers.onMessage?.(message, (reply, transfer) => this.post(slot, reply, transfer));
    }
  }

  /**
   * Ends a worker that a task left big, then answers the task: by the time its caller hears, the
   * thread and its heap are gone. Its slot is free at once, so waiting tasks start on a fresh one.
   */
  private retire(slot: Slot, answer: () => void): void {
    clearTimeout(slot.abortTimer);
    slot.job = undefined;
    this.slots.delete(slot);
    this.retired++;
    void slot.worker.terminate().finally(answer);
    this.dispatch();
    this.keepWarm();
  }

  /** The task is over for its caller now; its worker stops it, or is terminated. */
  private abort(job: Job, reason: Error): void {
    const queuedAt = this.queue.indexOf(job);
    if (queuedAt >= 0) {
      this.queue.splice(queuedAt, 1);
      this.settle(job, () => job.reject(reason));
      return;
    }
    const slot = [...this.slots].find((s) => s.job === job);
    this.settle(job, () => job.reject(reason));
    if (slot !== undefined) {
      this.post(slot, { type: 'abort', taskId: job.taskId });
      slot.abortTimer = setTimeout(() => {
        if (slot.job === job) {
          void slot.worker.terminate();
        }
      }, this.abortGraceMs);
    }
  }

  private settle(job: Job, how: () => void): void {
    if (!job.settled) {
      job.settled = true;
      clearTimeout(job.limitTimer);
      job.dropAbort?.();
      how();
    }
  }

  private release(slot: Slot): void {
    clearTimeout(slot.abortTimer);
    slot.job = undefined;
    this.dispatch();
    if (slot.job !== undefined) {
      return;
    }
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => {
      if (slot.job === undefined && this.slots.size > this.warmWorkers) {
        void slot.worker.terminate();
      }
    }, this.idleMs);
    slot.idleTimer.unref();
  }

  /** Starts waiting tasks on workers that are free or may be started. */
  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed && this.mayHaveSlot()) {
      const next = this.nextStartable();
      if (next === undefined) {
        return;
      }
      this.start(this.freeSlot()!, next);
    }
  }

  /**
   * Takes the first waiting task that may start now: in order, except that a task waiting for
   * memory lets tasks that need none go first. Tasks that need memory never pass each other, so
   * a big one is not starved by a stream of smaller ones.
   */
  private nextStartable(): Job | undefined {
    let memoryBlocked = false;
    for (let i = 0; i < this.queue.length; i++) {
      const job = this.queue[i]!;
      if (needsMemory(job) && (memoryBlocked || !this.fitsMemory(job))) {
        memoryBlocked = true;
        continue;
      }
      this.queue.splice(i, 1);
      return job;
    }
    return undefined;
  }

  private post(slot: Slot, message: ToWorker, transfer: readonly ArrayBuffer[] = []): void {
    slot.worker.postMessage(message, transfer);
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) {
    return reason;
  }
  const error = new Error('the task was cancelled');
  error.name = 'AbortError';
  return error;
}

function needsMemory(job: Job): boolean {
  return (job.handlers.memoryBytes ?? 0) > 0;
}
