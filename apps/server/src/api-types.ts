import type { BackendName } from '@streamscope/executor';

/** Lifecycle of a listed trace: runs move queued → running → finished|failed|cancelled. */
export type TraceStatus = 'queued' | 'running' | 'finished' | 'failed' | 'cancelled' | 'imported';

export const terminalStatuses: ReadonlySet<TraceStatus> = new Set([
  'finished',
  'failed',
  'cancelled',
  'imported',
]);

/** One row of GET /api/traces (openapi.yaml `TraceEntry`). */
export interface TraceEntry {
  readonly id: string;
  readonly source: 'run' | 'import';
  readonly title: string;
  readonly status: TraceStatus;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly finishedAt?: string;
  readonly opCount: number;
  readonly spanNs: number;
  /** The trace's source format (`TraceMeta.sourceFormat`), or the uploaded file's format. */
  readonly format: string;
  readonly backend?: BackendName;
  readonly target?: string;
  /** Why the backend was chosen (runs), or why the run failed. */
  readonly reason?: string;
  readonly preset?: string;
  readonly fileName?: string;
  /** Size of the stored codec file. */
  readonly fileBytes?: number;
  /** SHA-256 (hex) of an import's uploaded bytes, decoded: finds a re-import of the same file. */
  readonly contentSha256?: string;
  /**
   * A merged trace's identity (merge-key.ts): SHA-256 (hex) of its inputs' contents and the
   * title asked for; a merge of the same again answers this entry.
   */
  readonly mergeKey?: string;
  /**
   * Only in an answer that stored nothing new: an upload's (ifDuplicate=offer) earlier import of
   * the same bytes, or a merge's earlier merge of the same inputs and title.
   */
  readonly alreadyImported?: boolean;
  /** Runs ahead of this one in its queue lane (queued runs only). */
  readonly position?: number;
  readonly warnings?: readonly string[];
}
