import type { Trace } from '@streamscope/trace';
import type { ReplaySource } from './replay-source.ts';

/** The backends a run can use. `auto` resolves to `cuda` when a GPU is there, else `sim`. */
export type BackendName = 'cuda' | 'sim' | 'replay';
export type BackendChoice = BackendName | 'auto';

/** What a backend can do on this machine, or exactly why it cannot. */
export interface BackendStatus {
  readonly name: BackendName;
  readonly available: boolean;
  /** Why not, when unavailable ("no CUDA driver: cudaErrorInsufficientDriver (35)"). */
  readonly reason?: string;
  /** Device profiles (sim) or devices (cuda) it can run on. */
  readonly targets: readonly string[];
}

/** Why a run ended. */
export type RunEnd =
  | { readonly status: 'finished' }
  | { readonly status: 'cancelled' }
  | { readonly status: 'failed'; readonly reason: string };

export interface RunRequest {
  /** A workload spec as JSON (validated by the backend with @streamscope/workload). */
  readonly workload: unknown;
  /** Device profile (sim) or device ordinal as a string (cuda); backend default when absent. */
  readonly target?: string;
  /**
   * Replay only: the stored trace to replay, as a trace (sorted at start) or already prepared
   * (`replaySourceOf`, which a server runs in a worker thread).
   */
  readonly replayOf?: Trace | ReplaySource;
  /** Wall-clock limit; the watchdog ends the run past it with a reason. */
  readonly timeLimitMs: number;
  /** `realtime` paces the sim and replay backends at GPU speed; `fast` as fast as possible. */
  readonly pace: 'realtime' | 'fast';
  /**
   * Realtime pace only: GPU time runs this many times slower than wall time (1 when absent), so a
   * run of a few simulated ms can be watched filling in.
   */
  readonly slowdown?: number;
}

/**
 * A run in progress. The trace grows as records arrive; `onUpdate` fires (coalesced) after it
 * grew, so a live channel can encode what is new with the codec's TraceEncoder.
 */
export interface RunHandle {
  readonly trace: Trace;
  onUpdate(listener: () => void): () => void;
  cancel(): void;
  /** Settles when the run ends, never rejects: failures are a RunEnd with a reason. */
  readonly done: Promise<RunEnd>;
}

export interface Backend {
  readonly name: BackendName;
  status(): Promise<BackendStatus>;
  /** Starts a run. Throws (synchronously or as a rejection) only for an invalid request. */
  start(request: RunRequest): RunHandle;
}
