import type { BackendChoice, BackendName } from '@streamscope/executor';
import type { Trace } from '@streamscope/trace';
import type { ServerLimits } from '../config.ts';
import type { ImportService } from '../imports/import-service.ts';
import type { BackendSet, RunManager } from '../runs/run-manager.ts';
import type { TraceStore } from '../storage/trace-store.ts';
import type { SecurityPolicy } from './security.ts';

/** A workload validation error with its JSON path (`$.streams[1].ops[0].bytes`). */
export interface PathError {
  readonly path: string;
  readonly message: string;
}

/** What the routes need from @streamscope/workload. */
export interface WorkloadService {
  validate(
    json: unknown,
  ): { readonly ok: true } | { readonly ok: false; readonly errors: readonly PathError[] };
  presets(): readonly unknown[];
  /** A preset's workload; throws ApiError for an unknown preset or bad parameters. */
  build(
    name: string,
    params: Readonly<Record<string, unknown>>,
  ): { readonly workload: unknown; readonly title: string };
}

/** What the routes need from @streamscope/analysis and the exporters. */
export interface TraceTools {
  readonly analyze?: (trace: Trace, window?: { fromNs: number; toNs: number }) => unknown;
  readonly exportChrome?: (trace: Trace) => string;
  /**
   * Several ranks' traces of one job as one trace with a group per rank; throws ApiError
   * (422 `merge-failed`) naming the file when the ranks do not fit together.
   */
  readonly mergeRanks?: (
    inputs: readonly { readonly trace: Trace; readonly fileName: string }[],
    title: string | undefined,
  ) => { readonly trace: Trace; readonly warnings: readonly string[] };
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
