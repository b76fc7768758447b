import type { Writable } from 'node:stream';
import type { ReplaySource } from '@streamscope/executor';
import { memoryText, usableMemoryBytes } from '../config.ts';
import { ApiError } from '../http/api-error.ts';
import type { PathError } from '../http/services.ts';
import type { ContainerReader, ForeignImporter } from '../imports/import-service.ts';
import type { ImportedTrace } from '../imports/imported-trace.ts';
import type { TraceQuery } from '../storage/trace-query.ts';
import type { TraceWindow } from '../storage/trace-window.ts';
import type { NameQuery } from './name-match.ts';
import type { TimeWindowNs, ToWorker, TraceFileRef } from './protocol.ts';
import type { DecodeCost } from './task-memory.ts';
import {
  analysisCost,
  decodedTrace,
  defaultTaskMemoryBudgetBytes,
  containerMemoryBytes,
  importMemoryBytes,
  tileBuildCost,
  traceFileCounts,
} from './task-memory.ts';
import { queryDecodesTrace } from './tasks/query-task.ts';
import { windowTilesPath } from './tasks/window-task.ts';
import type { TaskHandlers, WorkerPoolOptions } from './worker-pool.ts';
import { WorkerPool } from './worker-pool.ts';

export type ValidationOutcome =
  { readonly ok: true } | { readonly ok: false; readonly errors: readonly PathError[] };

/** An export whose trace file has been checked, ready to be written out. */
export interface ChromeExport {
  /** Writes the export to `out` and ends it; rejects (and destroys `out`) if the export fails. */
  pipeTo(out: Writable): Promise<void>;
}

/**
 * The server's work that would block its event loop, run on a WorkerPool: workload expansion,
 * import parsing, analysis and Chrome export. Traces go to workers as file paths, never as data.
 */
export class ServerWorkers {
  /**
   * @param memoryLimitBytes the machine's memory: a task that says it needs more is refused at
   *   once (started, it would have the process killed for memory, and every request with it).
   */
  constructor(
    readonly pool: WorkerPool,
    private readonly memoryLimitBytes = usableMemoryBytes(),
  ) {}

  /** Checks and expands a workload spec; the verdict with every error's JSON path. */
  async validateWorkload(workload: unknown): Promise<ValidationOutcome> {
    return (await this.pool.run({ kind: 'validate-workload', workload })) as ValidationOutcome;
  }

  /**
   * What a task that decodes the whole traces `traces` declares to the pool at `cost`: their ops
   * and ranges as each file's end says (the entry's op count where a file has no end yet, a live
   * run's); an ApiError (507) naming `what` when that is more than the machine has.
   */
  private async decoding(
    traces: readonly Pick<TraceFileRef, 'path' | 'opCount'>[],
    cost: DecodeCost,
    what: string,
  ): Promise<TaskHandlers> {
    let ops = 0;
    let ranges = 0;
    for (const trace of traces) {
      const counts = await traceFileCounts(trace.path).catch(() => undefined);
      const traceOps = counts?.ops ?? trace.opCount;
      if (traceOps === undefined) {
        return {};
      }
      ops += traceOps;
      ranges += counts?.ranges ?? 0;
    }
    const needBytes = ops * cost.bytesPerOp + ranges * cost.bytesPerRange;
    if (needBytes > this.memoryLimitBytes) {
      throw tooLargeForMemory(what, { ops, ranges }, cost, this.memoryLimitBytes);
    }
    return { memoryBytes: needBytes };
  }

  /** The analysis of a stored trace as JSON text, optionally of a window of it. */
  async analyze(trace: TraceFileRef, window?: TimeWindowNs): Promise<string> {
    const task =
      window === undefined
        ? { kind: 'analyze' as const, trace }
        : { kind: 'analyze' as const, trace, window };
    return (await this.pool.run(
      task,
      await this.decoding([trace], analysisCost, 'the analysis of this trace'),
    )) as string;
  }

  /** A stored trace decoded and put in replay order in a worker; its columns come transferred. */
  async replaySource(trace: TraceFileRef): Promise<ReplaySource> {
    return (await this.pool.run(
      { kind: 'replay-source', trace },
      await this.decoding([trace], decodedTrace, 'a replay of this trace'),
    )) as ReplaySource;
  }

  /** Builds a stored trace's level-of-detail file at `outPath` (tile-pyramid.ts). */
  async buildTiles(trace: TraceFileRef, outPath: string): Promise<void> {
    await this.pool.run(
      { kind: 'build-tiles', trace, outPath },
      await this.decoding([trace], tileBuildCost, "building this trace's tiles"),
    );
  }

  /**
   * The ids of a tiled trace's names that a search matches. One that runs past `limitMs` on its
   * worker rejects with a 'TimeoutError', and the worker is ended if it does not stop.
   */
  async matchNames(tilesPath: string, query: NameQuery, limitMs: number): Promise<Uint32Array> {
    return (await this.pool.run(
      { kind: 'match-names', tilesPath, query },
      { runLimitMs: limitMs },
    )) as Uint32Array;
  }

  /**
   * The Chrome export of a stored trace. Resolves once the worker has checked the file (so one
   * that cannot be read rejects before anything is sent); `pipeTo` then writes it out as the
   * worker makes it. Each chunk's memory goes back to the worker once the destination has taken
   * it, and the worker makes no more than a few chunks ahead of the destination: memory stays a
   * few chunks whatever the size, and a slow client slows the worker. Destroying the destination,
   * or `signal`, stops the worker.
   */
  exportChrome(trace: TraceFileRef, signal?: AbortSignal): Promise<ChromeExport> {
    const controller = new AbortController();
    const stop = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    const early: Uint8Array[] = [];
    let out: Writable | undefined;
    let reply: ((message: ToWorker, transfer?: readonly ArrayBuffer[]) => void) | undefined;
    let taskId = 0;
    let writing = 0;
    let ended: { error?: Error } | undefined;
    let settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
    let finished = false;
    const finishIfDone = (): void => {
      if (finished || ended === undefined || out === undefined || writing > 0 || early.length > 0) {
        return;
      }
      finished = true;
      if (ended.error === undefined) {
        out.end(() => settle?.resolve());
      } else {
        out.destroy(ended.error);
        settle?.reject(ended.error);
      }
    };
    const write = (bytes: Uint8Array): void => {
      writing++;
      out!.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), (error) => {
        writing--;
        if (error === undefined || error === null) {
          // Written out: its memory goes back to the worker to be filled again.
          reply?.({ type: 'credit', taskId, buffer: bytes.buffer as ArrayBuffer }, [
            bytes.buffer as ArrayBuffer,
          ]);
        }
        finishIfDone();
      });
    };
    return new Promise((resolve, reject) => {
      const done = this.pool.run(
        { kind: 'export-chrome', trace },
        {
          signal: controller.signal,
          onMessage: (message, send) => {
            reply = send;
            taskId = message.taskId;
            if (message.type === 'started') {
              resolve({
                pipeTo: (destination) =>
                  new Promise<void>((resolvePipe, rejectPipe) => {
                    out = destination;
                    settle = { resolve: resolvePipe, reject: rejectPipe };
                    destination.once('close', () => {
                      if (ended === undefined) {
                        controller.abort();
                        rejectPipe(new Error('the destination closed before the export ended'));
                      }
                    });
                    for (const bytes of early.splice(0)) {
                      write(bytes);
                    }
                    finishIfDone();
                  }),
              });
            } else if (message.type === 'chunk') {
              if (out === undefined) {
                early.push(message.bytes);
              } else {
                write(message.bytes);
              }
            }
          },
        },
      );
      done
        .then(
          () => {
            ended = {};
          },
          (error: unknown) => {
            const failure = error instanceof Error ? error : new Error(String(error));
            ended = { error: failure };
            reject(failure); // no effect once started
          },
        )
        .finally(() => {
          signal?.removeEventListener('abort', stop);
          finishIfDone();
        });
    });
  }

  /**
   * A trace as codec bytes: its ops overlapping the window on the chosen tracks, or the whole
   * trace without a window (a live run's snapshot, made a complete container).
   */
  async window(trace: TraceFileRef, window?: TraceWindow): Promise<Uint8Array> {
    const task =
      window === undefined
        ? { kind: 'window' as const, trace }
        : { kind: 'window' as const, trace, window };
    // Read from the tiles file, it costs the window's ops; else the trace is decoded whole.
    const whole = (await windowTilesPath(trace, window)) === undefined;
    return (await this.pool.run(
      task,
      whole ? await this.decoding([trace], decodedTrace, 'this window of the trace') : {},
    )) as Uint8Array;
  }

  /** The answer to a question about a stored trace (trace-query.ts), as plain data. */
  async query(trace: TraceFileRef, query: TraceQuery): Promise<unknown> {
    const whole = await queryDecodesTrace(trace, query);
    return await this.pool.run(
      { kind: 'query', trace, query },
      whole ? await this.decoding([trace], decodedTrace, 'this question about the trace') : {},
    );
  }

  /** Stored ranks' traces merged into one, in the stored form. */
  async mergeRanks(
    inputs: readonly { readonly trace: TraceFileRef; readonly fileName: string }[],
    title: string | undefined,
    outBase: string,
  ): Promise<ImportedTrace> {
    const task =
      title === undefined
        ? { kind: 'merge' as const, inputs, outBase }
        : { kind: 'merge' as const, inputs, title, outBase };
    // Every input decoded, then the merged trace: as an import of them all.
    return (await this.pool.run(
      task,
      await this.decoding(
        inputs.map((input) => input.trace),
        tileBuildCost,
        'merging these traces',
      ),
    )) as ImportedTrace;
  }

  /** Checks an uploaded streamscope container in a worker and hands back its stored form. */
  readonly readContainer: ContainerReader = async (filePath, options) =>
    (await this.pool.run(
      {
        kind: 'load-container',
        filePath,
        fileName: options.fileName,
        outBase: options.outBase,
        ...(options.maxOps === undefined ? {} : { maxOps: options.maxOps }),
      },
      {
        memoryBytes: await containerMemoryBytes(
          filePath,
          options.maxOps ?? Number.POSITIVE_INFINITY,
        ),
        signal: options.signal,
      },
    )) as ImportedTrace;

  /** Parses an uploaded file in a worker: a ForeignImporter, with progress and stages relayed. */
  readonly importFile: ForeignImporter = async (filePath, options) =>
    (await this.pool.run(
      {
        kind: 'import',
        filePath,
        fileName: options.fileName,
        maxBytes: options.maxBytes,
        outBase: options.outBase,
        ...(options.maxOps === undefined ? {} : { maxOps: options.maxOps }),
      },
      {
        memoryBytes: await importMemoryBytes(filePath, options.maxOps ?? Number.POSITIVE_INFINITY),
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
}

let shared: ServerWorkers | undefined;

/** The process's worker pool, made on first use (its threads start when work comes). */
export function sharedWorkers(options?: WorkerPoolOptions): ServerWorkers {
  shared ??= new ServerWorkers(
    new WorkerPool({ memoryBudgetBytes: defaultTaskMemoryBudgetBytes(), ...options }),
  );
  return shared;
}

/**
 * The import service's seam: a ForeignImporter that parses in a worker thread of the shared
 * pool. Progress and stages are relayed as messages; an abort signals the worker, and a worker
 * that does not stop is terminated. It resolves with the trace in the stored form, so the
 * import service stores it without decoding it on the event loop.
 */
export const runImportInWorker = ((filePath: string, options: Parameters<ForeignImporter>[1]) =>
  sharedWorkers().importFile(filePath, options)) satisfies ForeignImporter;

/** Whole traces of `counts` decoded for `what` at `cost` would need more than `limitBytes`. */
function tooLargeForMemory(
  what: string,
  counts: { readonly ops: number; readonly ranges: number },
  cost: DecodeCost,
  limitBytes: number,
): ApiError {
  const needBytes = counts.ops * cost.bytesPerOp + counts.ranges * cost.bytesPerRange;
  const ranges =
    counts.ranges > 0
      ? ` and ${counts.ranges.toLocaleString('en-US')} ranges at ${cost.bytesPerRange} bytes a range`
      : '';
  return new ApiError(
    507,
    'too-large-for-memory',
    `${what} needs about ${memoryText(needBytes)} of memory (${counts.ops.toLocaleString('en-US')} ops at ${cost.bytesPerOp} bytes an op${ranges}), more than the ${memoryText(limitBytes)} this machine has; on a machine with more, download the trace and run \`streamscope analyze FILE\` or \`streamscope serve\` there`,
  );
}
