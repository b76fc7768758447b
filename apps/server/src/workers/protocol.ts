import { ApiError } from '../http/api-error.ts';
import type { TraceQuery } from '../storage/trace-query.ts';
import type { TraceWindow } from '../storage/trace-window.ts';
import type { NameQuery } from './name-match.ts';

// What the server's event loop and its worker threads say to each other. Workers are given
// paths and ids and read the stored trace themselves: a trace never crosses postMessage, only
// small results, progress and the export's byte chunks (transferred, not copied).

/** A stored trace file for a worker to read: `partial` when it may lack its end batch (a live run's snapshot). */
export interface TraceFileRef {
  readonly path: string;
  readonly partial: boolean;
  /** Ops it holds, when known: the columns are sized once instead of doubling as it loads. */
  readonly opCount?: number;
}

export interface TimeWindowNs {
  readonly fromNs: number;
  readonly toNs: number;
}

/** A simulator run for a worker thread (simulate-task.ts). */
export interface SimulateRequest {
  /** The workload spec as sent: validated and expanded in the worker. */
  readonly workload: unknown;
  /** The device profile (a DeviceProfile, plain data). */
  readonly profile: unknown;
  readonly pace: 'realtime' | 'fast';
  /** Realtime pace: GPU time runs this many times slower than wall time. */
  readonly slowdown: number;
}

/** The work a worker thread does. */
export type WorkerTask =
  | { readonly kind: 'validate-workload'; readonly workload: unknown }
  | { readonly kind: 'analyze'; readonly trace: TraceFileRef; readonly window?: TimeWindowNs }
  | { readonly kind: 'export-chrome'; readonly trace: TraceFileRef }
  /** A simulator run: its trace comes back as codec chunks, a few ahead of the loop (credits). */
  | { readonly kind: 'simulate'; readonly request: SimulateRequest }
  /** A stored trace decoded and sorted for a replay run (its columns transferred back). */
  | { readonly kind: 'replay-source'; readonly trace: TraceFileRef }
  | { readonly kind: 'build-tiles'; readonly trace: TraceFileRef; readonly outPath: string }
  /** The name ids of a `.tiles` file that a search matches. */
  | { readonly kind: 'match-names'; readonly tilesPath: string; readonly query: NameQuery }
  | {
      readonly kind: 'import';
      readonly filePath: string;
      readonly fileName: string;
      readonly maxBytes: number;
      readonly maxOps?: number;
      /** Where the stored form goes: `<outBase>.sstrace`, a big trace's pyramid `<outBase>.tiles`. */
      readonly outBase: string;
    }
  /** An uploaded .sstrace: checked and encoded again for storing. */
  | {
      readonly kind: 'load-container';
      readonly filePath: string;
      readonly fileName: string;
      readonly maxOps?: number;
      /** As the import's. */
      readonly outBase: string;
    }
  /** A window of a trace, or all of it (a live run's snapshot), as codec bytes. */
  | { readonly kind: 'window'; readonly trace: TraceFileRef; readonly window?: TraceWindow }
  /** A question about the whole trace with a small JSON answer (trace-query.ts). */
  | { readonly kind: 'query'; readonly trace: TraceFileRef; readonly query: TraceQuery }
  | {
      readonly kind: 'merge';
      readonly inputs: readonly { readonly trace: TraceFileRef; readonly fileName: string }[];
      readonly title?: string;
      /** As the import's. */
      readonly outBase: string;
    };

/** Event loop → worker. */
export type ToWorker =
  | { readonly type: 'run'; readonly taskId: number; readonly task: WorkerTask }
  /** Stop the task: its AbortSignal fires (the pool terminates a worker that does not stop). */
  | { readonly type: 'abort'; readonly taskId: number }
  /**
   * The event loop has written one export chunk out: the worker may send one more, and gets
   * the chunk's memory back (transferred) to fill again.
   */
  | { readonly type: 'credit'; readonly taskId: number; readonly buffer?: ArrayBuffer };

/** Worker → event loop. */
export type FromWorker =
  | { readonly type: 'progress'; readonly taskId: number; readonly bytesRead: number }
  | { readonly type: 'stage'; readonly taskId: number; readonly stage: string }
  /** The export has its trace loaded and starts sending chunks. */
  | { readonly type: 'started'; readonly taskId: number }
  | { readonly type: 'chunk'; readonly taskId: number; readonly bytes: Uint8Array }
  | {
      readonly type: 'done';
      readonly taskId: number;
      readonly result: unknown;
      /** The worker's memory once its task ended (heapBytes): the pool retires a grown worker. */
      readonly heapBytes: number;
    }
  | {
      readonly type: 'failed';
      readonly taskId: number;
      readonly error: WorkerError;
      readonly heapBytes: number;
    };

/**
 * An error as it crosses from a worker: an ApiError keeps its status, code and path; a system
 * error (a full disk) its code.
 */
export interface WorkerError {
  readonly name: string;
  readonly message: string;
  readonly status?: number;
  readonly code?: string;
  readonly path?: string;
}

/** Chunks a worker may have sent for an export that the event loop has not passed on yet. */
export const exportCredits = 4;

export function toWorkerError(error: unknown): WorkerError {
  if (error instanceof ApiError) {
    return {
      name: error.name,
      message: error.message,
      status: error.status,
      code: error.code,
      ...(error.path !== undefined ? { path: error.path } : {}),
    };
  }
  if (error instanceof Error) {
    // A system error keeps its code (ENOSPC from a worker's write is a 507, not a 500).
    const code = (error as NodeJS.ErrnoException).code;
    return {
      name: error.name,
      message: error.message,
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  return { name: 'Error', message: String(error) };
}

/** The error a worker reported, as the event loop throws it. */
export function fromWorkerError(error: WorkerError): Error {
  if (error.status !== undefined && error.code !== undefined) {
    return new ApiError(error.status, error.code, error.message, error.path);
  }
  const made: NodeJS.ErrnoException = new Error(error.message);
  made.name = error.name;
  if (error.code !== undefined) {
    made.code = error.code;
  }
  return made;
}
