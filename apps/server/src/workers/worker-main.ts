import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import type { FromWorker, ToWorker, WorkerTask } from './protocol.ts';
import { exportCredits, toWorkerError } from './protocol.ts';
import type { TaskContext, TaskResult } from './tasks/task-context.ts';

// The entry of a server worker thread (loaded by worker-bootstrap.mjs): runs the tasks the pool
// sends, one at a time, each module imported when first needed so a worker that only exports
// never loads the analysis or the importers' parsers.

const port = parentPort;
if (port === null) {
  throw new Error('worker-main.ts runs in a worker thread of the server');
}
lowerThreadPriority((workerData as { niceness: number }).niceness);

/**
 * Makes this thread `niceness` nicer than the event loop's (whose niceness it inherited when the
 * loop started it), so that under load the loop still gets a core when a request or a live frame
 * comes. Linux schedules threads one by one: the thread's id is in /proc/thread-self. Elsewhere
 * the thread keeps the process's priority.
 */
function lowerThreadPriority(niceness: number): void {
  let threadId: number;
  try {
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return;
  }
  if (Number.isInteger(threadId) && threadId > 0 && niceness > 0) {
    os.setPriority(threadId, Math.min(19, os.getPriority(threadId) + niceness));
  }
}

interface Running {
  readonly controller: AbortController;
  credits: number;
  wake: (() => void) | undefined;
  readonly spare: ArrayBuffer[];
}

const running = new Map<number, Running>();

port.on('message', (message: ToWorker) => {
  const task = running.get(message.taskId);
  switch (message.type) {
    case 'run':
      void start(message.taskId, message.task);
      return;
    case 'abort':
      task?.controller.abort();
      task?.wake?.();
      return;
    case 'credit':
      if (task !== undefined) {
        task.credits++;
        if (message.buffer !== undefined) {
          task.spare.push(message.buffer);
        }
        task.wake?.();
      }
      return;
  }
});

function send(message: FromWorker, transfer: readonly ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

async function start(taskId: number, task: WorkerTask): Promise<void> {
  const state: Running = {
    controller: new AbortController(),
    credits: exportCredits,
    wake: undefined,
    spare: [],
  };
  running.set(taskId, state);
  const { signal } = state.controller;
  // The most the task held where it said so: its memory at the end can be far below what the
  // thread keeps of it (a trace written out piece by piece leaves little counted, much held).
  let peakBytes = 0;
  const ctx: TaskContext = {
    taskId,
    signal,
    send,
    credit: async () => {
      while (state.credits === 0 && !signal.aborted) {
        await new Promise<void>((resolve) => {
          state.wake = resolve;
        });
        state.wake = undefined;
      }
      state.credits--;
    },
    spareBuffer: () => state.spare.pop(),
    notePeakMemory: () => {
      peakBytes = Math.max(peakBytes, heapBytes());
    },
  };
  try {
    const { result, transfer } = await run(task, ctx);
    const held = Math.max(heapBytes(), peakBytes);
    send({ type: 'done', taskId, result, heapBytes: held }, transfer);
  } catch (error) {
    const held = Math.max(heapBytes(), peakBytes);
    send({ type: 'failed', taskId, error: toWorkerError(error), heapBytes: held });
  } finally {
    running.delete(taskId);
  }
}

/**
 * What this thread's isolate holds now: its V8 heap as committed (V8 keeps the pages a big task
 * grew, and gives few back while idle) plus the ArrayBuffers and other memory outside it.
 */
function heapBytes(): number {
  const heap = getHeapStatistics();
  return heap.total_heap_size + heap.external_memory + heap.malloced_memory;
}

// Loaded while the thread is idle, so a task finds its modules ready (a failure surfaces when
// the task imports the module itself).
void Promise.allSettled([
  import('./tasks/validate-task.ts'),
  import('./tasks/analyze-task.ts'),
  import('./tasks/export-task.ts'),
  import('./tasks/import-task.ts'),
  import('./tasks/container-task.ts'),
  import('./tasks/window-task.ts'),
  import('./tasks/tile-task.ts'),
  import('./tasks/query-task.ts'),
  import('./tasks/match-names-task.ts'),
]);

async function run(task: WorkerTask, ctx: TaskContext): Promise<TaskResult> {
  switch (task.kind) {
    case 'validate-workload':
      return (await import('./tasks/validate-task.ts')).validateTask(task.workload);
    case 'analyze':
      return (await import('./tasks/analyze-task.ts')).analyzeTask(task.trace, task.window, ctx);
    case 'export-chrome':
      return (await import('./tasks/export-task.ts')).exportTask(task.trace, ctx);
    case 'simulate':
      return (await import('./tasks/simulate-task.ts')).simulateTask(task.request, ctx);
    case 'replay-source':
      return (await import('./tasks/replay-source-task.ts')).replaySourceTask(task.trace, ctx);
    case 'match-names':
      return (await import('./tasks/match-names-task.ts')).matchNamesTask(
        task.tilesPath,
        task.query,
      );
    case 'build-tiles':
      return (await import('./tasks/tile-task.ts')).tileTask(task.trace, task.outPath, ctx);
    case 'import':
      return (await import('./tasks/import-task.ts')).importTask(
        task.filePath,
        task.fileName,
        task.maxBytes,
        task.maxOps,
        task.outBase,
        ctx,
      );
    case 'load-container':
      return (await import('./tasks/container-task.ts')).containerTask(
        task.filePath,
        task.fileName,
        task.maxOps ?? Number.POSITIVE_INFINITY,
        task.outBase,
        ctx,
      );
    case 'window':
      return (await import('./tasks/window-task.ts')).windowTask(task.trace, task.window, ctx);
    case 'query':
      return (await import('./tasks/query-task.ts')).queryTask(task.trace, task.query, ctx);
    case 'merge':
      return (await import('./tasks/merge-task.ts')).mergeTask(
        task.inputs,
        task.title,
        task.outBase,
        ctx,
      );
  }
}
