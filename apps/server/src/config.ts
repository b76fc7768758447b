import type { BackendChoice } from '@streamscope/executor';
import { defaultMaxImportBytes } from '@streamscope/importers';

/**
 * The largest file one import takes unless told otherwise: a server upload (`serve
 * --max-upload-mb`) and a CLI import (`import --max-bytes`) alike. It is the importers' own
 * default, which they size from what a streaming import holds in memory, so the server, the
 * CLI and the importers never disagree.
 */
export const defaultImportBytes = defaultMaxImportBytes;

/** Limits on what clients may ask of the server. */
export interface ServerLimits {
  /** JSON request bodies (workloads). */
  readonly jsonBodyBytes: number;
  /** One uploaded file. */
  readonly uploadBytes: number;
  /** Run time limit when the request names none, and the most a request may ask for. */
  readonly defaultRunMs: number;
  readonly maxRunMs: number;
  /** Simulator and replay runs at once (GPU runs are one per device). */
  readonly concurrentRuns: number;
  /** Runs waiting in the queue before new ones are refused. */
  readonly maxQueuedRuns: number;
  /** Bytes a live socket may hold unsent before its subscription waits for it to drain. */
  readonly liveHighWaterBytes: number;
  readonly maxSubscriptionsPerSocket: number;
  /** One client message on the live channel. */
  readonly liveMessageBytes: number;
  /** How long a name search of a tiled trace may run on its worker (a regex that backtracks badly is ended). */
  readonly searchMs: number;
}

export const defaultLimits: ServerLimits = {
  jsonBodyBytes: 1 << 20,
  uploadBytes: defaultImportBytes,
  defaultRunMs: 60_000,
  maxRunMs: 600_000,
  concurrentRuns: 4,
  maxQueuedRuns: 64,
  liveHighWaterBytes: 1 << 20,
  maxSubscriptionsPerSocket: 16,
  liveMessageBytes: 16 * 1024,
  searchMs: 5_000,
};

/** Tuning of the live channel and the run loop (tests and benchmarks shorten these). */
export interface ServerTiming {
  readonly minFrameIntervalMs: number;
  readonly progressIntervalMs: number;
  readonly watchdogGraceMs: number;
  readonly heartbeatMs: number;
}

export const defaultTiming: ServerTiming = {
  minFrameIntervalMs: 10,
  progressIntervalMs: 500,
  watchdogGraceMs: 5_000,
  heartbeatMs: 30_000,
};

export const defaultPort = 5178;
export const defaultHost = '127.0.0.1';
export const defaultBackendChoice: BackendChoice = 'auto';
