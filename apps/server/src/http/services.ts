import type { BackendChoice, BackendName, ReplaySource } from '@streamscope/executor';
import type { ServerLimits } from '../config.ts';
import type { ImportService } from '../imports/import-service.ts';
import type { ImportedTrace } from '../imports/imported-trace.ts';
import type { BackendSet, RunManager } from '../runs/run-manager.ts';
import type { TraceStore } from '../storage/trace-store.ts';
import type { TraceQuery } from '../storage/trace-query.ts';
import type { TraceWindow } from '../storage/trace-window.ts';
import type { NameQuery } from '../workers/name-match.ts';
import type { TimeWindowNs, TraceFileRef } from '../workers/protocol.ts';
import type { ChromeExport } from '../workers/server-workers.ts';
import type { SecurityPolicy } from './security.ts';

/** A workload validation error with its JSON path (`$.streams[1].ops[0].bytes`). */
export interface PathError {
  readonly path: string;
  readonly message: string;
}

export type WorkloadVerdict =
  { readonly ok: true } | { readonly ok: false; readonly errors: readonly PathError[] };

/** What the routes need from @streamscope/workload. */
export interface WorkloadService {
  /** Checks (and expands) a spec: in a worker thread where the service has one. */
  validate(json: unknown): WorkloadVerdict | Promise<WorkloadVerdict>;
  presets(): readonly unknown[];
  /** A preset's workload; throws ApiError for an unknown preset or bad parameters. */
  build(
    name: string,
    params: Readonly<Record<string, unknown>>,
  ): { readonly workload: unknown; readonly title: string };
}

/**
 * What the routes need from @streamscope/analysis and the exporters, off the event loop: each
 * reads the stored trace file it is given.
 */
export interface TraceTools {
  /** The analysis as JSON text. */
  readonly analyze?: (trace: TraceFileRef, window?: TimeWindowNs) => Promise<string>;
  /**
   * The Chrome trace JSON, written out as it is made; resolves once the trace file has been
   * checked, so one that cannot be read rejects before a byte is sent. `signal` stops it.
   */
  readonly exportChrome?: (trace: TraceFileRef, signal: AbortSignal) => Promise<ChromeExport>;
  /** A stored trace decoded and put in replay order (a replay run's source). */
  readonly replaySource?: (trace: TraceFileRef) => Promise<ReplaySource>;
  /** Writes the level-of-detail file of a stored trace to `outPath` (whole or not at all). */
  readonly buildTiles?: (trace: TraceFileRef, outPath: string) => Promise<void>;
  /**
   * The name ids of a `.tiles` file that a search matches (a user's regular expression among
   * them), off the event loop; past `limitMs` of matching it rejects with a 'TimeoutError'.
   */
  readonly matchNames?: (
    tilesPath: string,
    query: NameQuery,
    limitMs: number,
  ) => Promise<Uint32Array>;
  /**
   * A window of the trace as codec bytes (GET /api/traces/:id/data with fromNs/toNs/tracks), or
   * the whole trace without one (a live run's snapshot); throws ApiError 400 naming `tracks`
   * when one is beyond the trace's tracks.
   */
  readonly window?: (trace: TraceFileRef, window?: TraceWindow) => Promise<Uint8Array>;
  /** Answers a question about the whole stored trace (area, flows, search marks: trace-query.ts). */
  readonly query?: (trace: TraceFileRef, query: TraceQuery) => Promise<unknown>;
  /**
   * Several ranks' stored traces of one job as one trace with a group per rank, in the stored
   * form; throws ApiError (422 `merge-failed`) naming the file when the ranks do not fit together.
   */
  readonly mergeRanks?: (
    inputs: readonly { readonly trace: TraceFileRef; readonly fileName: string }[],
    title: string | undefined,
    /** Where the merged trace is written (`<outBase>.sstrace`), for the caller to store. */
    outBase: string,
  ) => Promise<ImportedTrace>;
}

/** Everything the HTTP layer calls; handlers parse, validate, call one of these, serialize. */
export interface AppServices {
  readonly store: TraceStore;
  readonly runs: RunManager;
  readonly backendSet: BackendSet;
  readonly imports: ImportService;
  readonly workloads?: WorkloadService;
  readonly tools: TraceTools;
  readonly limits: ServerLimits;
  readonly policy: SecurityPolicy;
  readonly defaultBackend: BackendChoice;
  /** What `auto` resolved to at start, and why. */
  readonly autoBackend: { readonly name: BackendName; readonly reason: string };
  readonly version: string;
  readonly webDistDir: string;
  readonly log: (line: string) => void;
}
