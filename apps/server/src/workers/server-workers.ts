import { Readable } from 'node:stream';
import type { Trace } from '@streamscope/trace';
import { loadTrace } from '@streamscope/trace';
import type { PathError } from '../http/services.ts';
import type { ForeignImporter } from '../imports/import-service.ts';
import type { TimeWindowNs, TraceFileRef } from './protocol.ts';
import type { ImportedTrace } from './tasks/import-task.ts';
import type { WorkerPoolOptions } from './worker-pool.ts';
import { WorkerPool } from './worker-pool.ts';

export type ValidationOutcome =
  { readonly ok: true } | { readonly ok: false; readonly errors: readonly PathError[] };

/** What `runImportInWorker` resolves with: a ForeignImporter's result, and the stored form. */
export interface WorkerImport {
  /** Decoded on first use, on the calling thread. */
  readonly trace: Trace;
  readonly warnings: readonly string[];
  /** The trace as codec bytes, ready to store as they are (no decoding or encoding needed). */
  readonly traceBytes: Uint8Array;
  readonly opCount: number;
}

/**
 * The server's work that would block its event loop, run on a WorkerPool: workload expansion,
 * import parsing, analysis and Chrome export. Traces go to workers as file paths, never as data.
 */
export class ServerWorkers {
  constructor(readonly pool: WorkerPool) {}

  /** Checks and expands a workload spec; the verdict with every error's JSON path. */
  async validateWorkload(workload: unknown): Promise<ValidationOutcome> {
    return (await this.pool.run({ kind: 'validate-workload', workload })) as ValidationOutcome;
  }

  /** The analysis of a stored trace as JSON text, optionally of a window of it. */
  async analyze(trace: TraceFileRef, window?: TimeWindowNs): Promise<string> {
    const task =
      window === undefined
        ? { kind: 'analyze' as const, trace }
        : { kind: 'analyze' as const, trace, window };
    return (await this.pool.run(task)) as string;
  }

  /**
   * The Chrome export of a stored trace as a byte stream. Resolves once the worker has read the
   * trace (so a trace that cannot be read rejects before anything is sent); the worker makes
   * each chunk only when the stream's reader has room for it. Destroying the stream, or
   * `signal`, stops the worker.
   */
  exportChrome(trace: TraceFileRef, signal?: AbortSignal): Promise<Readable> {
    const controller = new AbortController();
    const stop = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    let reply: ((message: { type: 'credit'; taskId: number }) => void) | undefined;
    let taskId = 0;
    let owed = 0;
    const stream = new Readable({
      read() {
        for (; owed > 0 && reply !== undefined; owed--) {
          reply({ type: 'credit', taskId });
        }
      },
      destroy(error, callback) {
        controller.abort();
        callback(error);
      },
    });
    return new Promise((resolve, reject) => {
      let started = false;
      const done = this.pool.run(
        { kind: 'export-chrome', trace },
        {
          signal: controller.signal,
          onMessage: (message, send) => {
            reply = send;
            taskId = message.taskId;
            if (message.type === 'started') {
              started = true;
              resolve(stream);
            } else if (message.type === 'chunk') {
              const { bytes } = message;
              if (stream.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) {
                send({ type: 'credit', taskId });
              } else {
                owed++;
              }
            }
          },
        },
      );
      done
        .then(
          () => stream.push(null),
          (error: unknown) => {
            const failure = error instanceof Error ? error : new Error(String(error));
            if (started) {
              stream.destroy(failure);
            } else {
              reject(failure);
            }
          },
        )
        .finally(() => signal?.removeEventListener('abort', stop));
    });
  }

  /** Parses an uploaded file in a worker: a ForeignImporter, with progress and stages relayed. */
  readonly importFile = async (
    filePath: string,
    options: Parameters<ForeignImporter>[1],
  ): Promise<WorkerImport> => {
    const imported = (await this.pool.run(
      { kind: 'import', filePath, fileName: options.fileName, maxBytes: options.maxBytes },
      {
        signal: options.signal,
        onMessage: (message) => {
          if (message.type === 'progress') {
            options.onProgress(message.bytesRead);
          } else if (message.type === 'stage') {
            options.onStage?.(message.stage);
          }
        },
      },
    )) as ImportedTrace;
    let trace: Trace | undefined;
    return {
      get trace() {
        trace ??= loadTrace(imported.traceBytes);
        return trace;
      },
      warnings: imported.warnings,
      traceBytes: imported.traceBytes,
      opCount: imported.opCount,
    };
  };
}

let shared: ServerWorkers | undefined;

/** The process's worker pool, made on first use (its threads start when work comes). */
export function sharedWorkers(options?: WorkerPoolOptions): ServerWorkers {
  shared ??= new ServerWorkers(new WorkerPool(options));
  return shared;
}

/**
 * The import service's seam: a ForeignImporter that parses in a worker thread of the shared
 * pool. Progress and stages are relayed as messages; an abort signals the worker, and a worker
 * that does not stop is terminated. Its result also carries `traceBytes`, the trace in the
 * stored form, so a caller can store it without decoding it on the event loop.
 */
export const runImportInWorker: ForeignImporter = (filePath, options) =>
  sharedWorkers().importFile(filePath, options);
