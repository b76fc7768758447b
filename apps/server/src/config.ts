import { totalmem } from 'node:os';
import process from 'node:process';
import type { BackendChoice } from '@streamscope/executor';
import { maxImportOpsFor } from '@streamscope/importers';

/**
 * The largest file one import takes unless told otherwise: none. An import streams its input
 * (a SQLite export is read page by page), so its memory follows the ops it keeps, not the file's
 * size; that is what defaultImportOps limits. `serve --max-upload-mb` and `import --max-bytes`
 * set one where disk or bandwidth call for it.
 */
export const defaultImportBytes = Number.POSITIVE_INFINITY;

/** This process's memory: the machine's, or its container's (cgroup) limit when that is less. */
export function usableMemoryBytes(): number {
  const total = totalmem();
  const constrained = process.constrainedMemory();
  return constrained > 0 && constrained < total ? constrained : total;
}

/** A memory size as the server's messages give it: "25.3 GB", "366.0 MB", "153 kB". */
export function memoryText(bytes: number): string {
  if (bytes >= 1e9) {
    return `${(bytes / 1e9).toFixed(1)} GB`;
  }
  if (bytes >= 1e6) {
    return `${(bytes / 1e6).toFixed(1)} MB`;
  }
  return `${Math.ceil(bytes / 1e3)} kB`;
}

/**
 * The most ops and ranges one import keeps, together, unless told otherwise, on a server upload (`serve --max-ops`)
 * and a CLI import (`import --max-ops`) alike: what this machine's memory holds at an import's
 * measured peak per op (the importers' maxImportOpsFor).
 */
export const defaultImportOps = maxImportOpsFor(usableMemoryBytes());

/** Limits on what clients may ask of the server. */
export interface ServerLimits {
  /** JSON request bodies (workloads). */
  readonly jsonBodyBytes: number;
  /** One uploaded file (default: no limit; see defaultImportBytes). */
  readonly uploadBytes: number;
  /** Ops one import keeps: an upload past it is refused (413), SQLite before its rows are read. */
  readonly importOps: number;
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
  importOps: defaultImportOps,
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
