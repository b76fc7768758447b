import type {
  Backend,
  BackendChoice,
  BackendName,
  ReplaySource,
  RunEnd,
  RunHandle,
} from '@streamscope/executor';
import type { Trace } from '@streamscope/trace';
import { TraceEncoder } from '@streamscope/trace';
import type { TraceEntry } from '../api-types.ts';
import { ApiError, badRequest, conflict, notFound } from '../http/api-error.ts';
import type { RunSummaryInfo, ServerMessage } from '../live/protocol.ts';
import { RunLog } from '../live/run-log.ts';
import { tilesAtImportMinOps } from '../storage/tile-format.ts';
import type { TraceStore } from '../storage/trace-store.ts';
import { newId } from '../storage/trace-store.ts';
import type { TraceFileRef } from '../workers/protocol.ts';
import { storedTraceFile } from '../workers/trace-files.ts';
import { FrameFlusher } from './frame-flusher.ts';
import { finalMessage, messageOf } from './run-outcome.ts';
import { checkTarget } from './target-check.ts';
import { ReplaySourceCache } from './replay-sources.ts';
import { RunQueue } from './run-queue.ts';
import { watchdog } from './watchdog.ts';

/** The backends a server runs on, and how `auto` picks one. */
export interface BackendSet {
  readonly backends: Readonly<Record<BackendName, Backend>>;
  resolveAuto(): Promise<{ readonly backend: Backend; readonly reason: string }>;
  /** The CUDA probe (addon, driver, CUPTI, devices), when this build can take one. */
  readonly probe?: () => Promise<unknown>;
  /** The simulator's device profiles (calibrated or published numbers). */
  readonly profiles?: () => readonly unknown[];
}

/** A validated request to run. */
export interface RunSubmission {
  readonly workload: unknown;
  readonly title: string;
  readonly preset?: string;
  readonly backend: BackendChoice;
  readonly target?: string;
  readonly pace: 'realtime' | 'fast';
  /** Realtime pace: how many times slower than GPU time the run is played (1 = real time). */
  readonly slowdown: number;
  readonly timeLimitMs: number;
  /** Replay only: the stored trace to replay. */
  readonly replayOf?: string;
}

export interface RunManagerOptions {
  readonly store: TraceStore;
  readonly backendSet: BackendSet;
  /** Simulator and replay runs at once. */
  readonly concurrentRuns: number;
  /** A run's frames are at least this far apart (coalescing bursts of small updates). */
  readonly minFrameIntervalMs: number;
  readonly progressIntervalMs: number;
  /** How long after its time limit a run that ignores cancel is abandoned as failed. */
  readonly watchdogGraceMs: number;
  readonly summarize?: (trace: Trace) => unknown;
  /** Builds a stored run's level-of-detail file (a big run's, as it is stored: tile-format.ts). */
  readonly buildTiles?: (trace: TraceFileRef, outPath: string) => Promise<void>;
  /** A stored trace decoded and put in replay order, off the event loop (a worker thread). */
  readonly replaySource: (trace: TraceFileRef) => Promise<ReplaySource>;
  /** Replay sources kept decoded, in bytes of their columns (replay-sources.ts). */
  readonly replayCacheBytes?: number;
  readonly log: (line: string) => void;
}

interface LiveRun {
  readonly id: string;
  readonly log: RunLog;
  handle?: RunHandle;
  cancelRequested: boolean;
}

/** Queues, starts, watches and stores runs; a run carries on whoever watches it. */
export class RunManager {
  private readonly live = new Map<string, LiveRun>();
  private readonly queue: RunQueue;
  /** Stored traces ready to replay, the recent ones kept up to a byte cap. */
  readonly replaySources: ReplaySourceCache;
  private closing = false;

  constructor(private readonly options: RunManagerOptions) {
    const { store } = options;
    this.replaySources = new ReplaySourceCache((id) => {
      const entry = store.get(id)?.entry;
      return options.replaySource(storedTraceFile(store.tracePath(id), entry?.opCount ?? 0).ref);
    }, options.replayCacheBytes);
    this.queue = new RunQueue(
      (lane) => (lane.startsWith('cuda:') ? 1 : options.concurrentRuns),
      (waiting) => {
        waiting.forEach((id, position) => {
          this.live.get(id)?.log.appendControl({ type: 'queued', runId: id, position });
        });
      },
    );
  }

  /** Chooses the backend, records the run as queued and enqueues it. */
  async submit(submission: RunSubmission): Promise<{ id: string; position: number }> {
    if (this.closing) {
      throw new ApiError(503, 'shutting-down', 'the server is shutting down');
    }
    const { backend, reason } = await this.chooseBackend(submission.backend);
    if (submission.target !== undefined) {
      await checkTarget(backend, submission.target);
    }
    let replayOf: ReplaySource | undefined;
    if (backend.name === 'replay') {
      replayOf = await this.replaySource(submission.replayOf);
    }
    const id = newId();
    const entry: TraceEntry = {
      id,
      source: 'run',
      title: submission.title,
      status: 'queued',
      createdAt: new Date().toISOString(),
      opCount: 0,
      spanNs: 0,
      format: backend.name === 'cuda' ? 'streamscope-cuda' : 'streamscope-sim',
      backend: backend.name,
      reason,
      ...(submission.target !== undefined ? { target: submission.target } : {}),
      ...(submission.preset !== undefined ? { preset: submission.preset } : {}),
    };
    this.options.store.insert(entry);
    const run: LiveRun = { id, log: new RunLog(id, 'queued'), cancelRequested: false };
    this.live.set(id, run);
    const lane = backend.name === 'cuda' ? `cuda:${submission.target ?? '0'}` : 'concurrent';
    run.log.appendControl({ type: 'queued', runId: id, position: 0 });
    const position = this.queue.enqueue({
      id,
      lane,
      run: () => this.execute(run, backend, submission, replayOf, reason),
    });
    // The 202 promises the run exists: its row is on disk before the answer, so a crash right
    // after it still lists the run (recovery marks it failed) instead of forgetting it.
    await this.options.store.flush();
    return { id, position };
  }

  private async chooseBackend(
    choice: BackendChoice,
  ): Promise<{ backend: Backend; reason: string }> {
    if (choice === 'auto') {
      return this.options.backendSet.resolveAuto();
    }
    const backend = this.options.backendSet.backends[choice];
    const status = await backend.status();
    if (!status.available) {
      throw new ApiError(
        422,
        'backend-unavailable',
        `backend '${choice}' is not available: ${status.reason ?? 'no reason given'}`,
        '$.backend',
      );
    }
    // Chosen by name: nothing to explain (auto says why it picked what it did).
    return { backend, reason: '' };
  }

  private async replaySource(traceId: string | undefined): Promise<ReplaySource> {
    if (traceId === undefined) {
      throw badRequest("a replay run needs 'replayOf': the id of a stored trace", '$.replayOf');
    }
    const stored = this.options.store.get(traceId);
    if (stored === undefined || !this.options.store.hasTraceFile(traceId)) {
      throw new ApiError(422, 'not-found', `no stored trace '${traceId}' to replay`, '$.replayOf');
    }
    return this.replaySources.get(traceId);
  }

  /** Runs ahead of a queued run, or undefined when it is not waiting. */
  position(id: string): number | undefined {
    return this.queue.position(id);
  }

  /** Cancels a queued or running run; a finished one is a conflict. */
  cancel(id: string): 'cancelled' | 'cancelling' {
    const run = this.live.get(id);
    if (run === undefined) {
      const stored = this.options.store.get(id);
      if (stored === undefined || stored.entry.source !== 'run') {
        throw notFound(`no run '${id}'`);
      }
      throw conflict(`run '${id}' has already ended (${stored.entry.status})`);
    }
    run.cancelRequested = true;
    if (this.queue.remove(id)) {
      void this.finishUnstarted(run, { status: 'cancelled' });
      return 'cancelled';
    }
    run.handle?.cancel();
    return 'cancelling';
  }

  /** The live log of a run, or undefined when the run is not live. */
  liveLog(id: string): RunLog | undefined {
    return this.live.get(id)?.log;
  }

  isLive(id: string): boolean {
    return this.live.has(id);
  }

  /** The growing trace of a running run. */
  liveTrace(id: string): Trace | undefined {
    return this.live.get(id)?.handle?.trace;
  }

  /** Runs waiting to start. */
  queuedCount(): number {
    let count = 0;
    for (const run of this.live.values()) {
      if (run.handle === undefined && !run.log.closed) {
        count++;
      }
    }
    return count;
  }

  private async execute(
    run: LiveRun,
    backend: Backend,
    submission: RunSubmission,
    replayOf: ReplaySource | undefined,
    reason: string,
  ): Promise<void> {
    if (run.cancelRequested) {
      return;
    }
    let handle: RunHandle;
    try {
      handle = backend.start({
        workload: submission.workload,
        timeLimitMs: submission.timeLimitMs,
        pace: submission.pace,
        slowdown: submission.slowdown,
        ...(submission.target !== undefined ? { target: submission.target } : {}),
        ...(replayOf !== undefined ? { replayOf } : {}),
      });
    } catch (error) {
      await this.finishUnstarted(run, { status: 'failed', reason: messageOf(error) });
      return;
    }
    // The trace view titles the run as the list does (a backend names it after the workload).
    handle.trace.meta = { ...handle.trace.meta, title: submission.title };
    await this.follow(run, handle, backend.name, reason, submission.timeLimitMs, submission.target);
  }

  /**
   * Lists a run whose producer lives outside the queue (a profiled program, `streamscope
   * profile`) as running at once, then streams, watches and stores it like any other run.
   */
  attach(
    request: { readonly title: string; readonly reason: string; readonly timeLimitMs: number },
    handle: RunHandle,
  ): string {
    if (this.closing) {
      throw new ApiError(503, 'shutting-down', 'the server is shutting down');
    }
    const id = newId();
    this.options.store.insert({
      id,
      source: 'run',
      title: request.title,
      status: 'running',
      createdAt: new Date().toISOString(),
      opCount: 0,
      spanNs: 0,
      format: 'streamscope-cuda',
      backend: 'cuda',
      reason: request.reason,
    });
    const run: LiveRun = { id, log: new RunLog(id, 'running'), cancelRequested: false };
    this.live.set(id, run);
    void this.follow(run, handle, 'cuda', request.reason, request.timeLimitMs, undefined);
    return id;
  }

  private async follow(
    run: LiveRun,
    handle: RunHandle,
    backendName: BackendName,
    reason: string,
    timeLimitMs: number,
    target: string | undefined,
  ): Promise<void> {
    run.handle = handle;
    const startedMs = performance.now();
    this.options.store.update(run.id, { status: 'running' });
    run.log.status = 'running';
    run.log.appendControl({
      type: 'started',
      runId: run.id,
      backend: backendName,
      reason,
      ...(target !== undefined ? { target } : {}),
    });
    const encoder = new TraceEncoder(handle.trace);
    const flusher = new FrameFlusher(
      () => run.log.appendFrame(encoder.encodeNew()),
      this.options.minFrameIntervalMs,
    );
    const unsubscribe = handle.onUpdate(() => flusher.request());
    flusher.flushNow();
    let lastProgressOps = -1;
    const progress = setInterval(() => {
      const trace = handle.trace;
      if (trace.ops.count !== lastProgressOps) {
        lastProgressOps = trace.ops.count;
        run.log.appendControl({
          type: 'progress',
          runId: run.id,
          opCount: trace.ops.count,
          spanNs: trace.spanNs(),
          elapsedMs: Math.round(performance.now() - startedMs),
        });
      }
    }, this.options.progressIntervalMs);
    progress.unref();
    const end = await watchdog(handle, timeLimitMs, this.options.watchdogGraceMs);
    clearInterval(progress);
    unsubscribe();
    flusher.flushNow();
    flusher.dispose();
    run.log.appendFrame(encoder.encodeEnd());
    try {
      await this.store(run, handle.trace, end);
    } catch (error) {
      // The run must still end for its watchers, whatever storage did.
      this.options.log(`run ${run.id}: storing failed: ${messageOf(error)}`);
      this.close(run, {
        type: 'failed',
        runId: run.id,
        frameCount: run.log.frameCount,
        reason: `could not store the run: ${messageOf(error)}`,
      });
    }
  }

  private async store(run: LiveRun, trace: Trace, end: RunEnd): Promise<void> {
    const { store } = this.options;
    let fileBytes: number | undefined;
    let final = end;
    try {
      fileBytes = await store.writeTraceFile(run.id, run.log.recordStream());
      await store.writeFrameEnds(run.id, run.log.frameEnds);
      await this.buildTilesOf(run.id, trace.ops.count);
    } catch (error) {
      final = { status: 'failed', reason: `could not store the trace: ${messageOf(error)}` };
      this.options.log(`run ${run.id}: ${final.reason}`);
    }
    const summary: RunSummaryInfo = {
      opCount: trace.ops.count,
      spanNs: trace.spanNs(),
      trackCount: trace.tracks.length,
      ...this.analysisOf(trace),
    };
    store.update(run.id, {
      status: final.status,
      finishedAt: new Date().toISOString(),
      opCount: summary.opCount,
      spanNs: summary.spanNs,
      format: trace.meta.sourceFormat,
      ...(final.status === 'failed' ? { reason: final.reason } : {}),
      ...(fileBytes !== undefined ? { fileBytes } : {}),
      ...(trace.meta.warnings !== undefined ? { warnings: trace.meta.warnings } : {}),
    });
    await store.flush();
    this.close(run, finalMessage(run.id, final, run.log.frameCount, summary));
  }

  /** A big run's pyramid, as an import's, before the run is said to be stored; a failure is logged. */
  private async buildTilesOf(id: string, opCount: number): Promise<void> {
    const build = this.options.buildTiles;
    if (build === undefined || opCount < tilesAtImportMinOps) {
      return;
    }
    const { store } = this.options;
    try {
      await build(storedTraceFile(store.tracePath(id), opCount).ref, store.tilesPath(id));
    } catch (error) {
      this.options.log(
        `run ${id}: its tiles were not built (${messageOf(error)}); a first open builds them`,
      );
    }
  }

  private analysisOf(trace: Trace): { analysis?: unknown } {
    if (this.options.summarize === undefined) {
      return {};
    }
    try {
      return { analysis: this.options.summarize(trace) };
    } catch (error) {
      this.options.log(`summary failed: ${messageOf(error)}`);
      return {};
    }
  }

  /** Ends a run that never started (cancelled while queued, or refused by its backend). */
  private async finishUnstarted(run: LiveRun, end: RunEnd): Promise<void> {
    this.options.store.update(run.id, {
      status: end.status,
      finishedAt: new Date().toISOString(),
      ...(end.status === 'failed' ? { reason: end.reason } : {}),
    });
    await this.options.store.flush();
    this.close(run, finalMessage(run.id, end, 0, { opCount: 0, spanNs: 0, trackCount: 0 }));
  }

  private close(run: LiveRun, message: ServerMessage): void {
    run.log.status = message.type;
    run.log.appendControl(message);
    run.log.close();
    this.live.delete(run.id);
  }

  /** Cancels queued and running runs and waits (bounded) until each is stored. */
  async shutdown(): Promise<void> {
    this.closing = true;
    for (const job of this.queue.drain()) {
      const run = this.live.get(job.id);
      if (run !== undefined) {
        run.cancelRequested = true;
        await this.finishUnstarted(run, { status: 'cancelled' });
      }
    }
    const running = [...this.live.values()];
    const ended = running.map(
      (run) =>
        new Promise<void>((resolve) => {
          if (run.log.closed) {
            resolve();
            return;
          }
          run.log.onAppend(() => {
            if (run.log.closed) {
              resolve();
            }
          });
        }),
    );
    for (const run of running) {
      run.cancelRequested = true;
      run.handle?.cancel();
    }
    await Promise.all(ended);
  }
}
