import type { SqlValue } from 'sql.js';

// What the event loop and the metadata thread (metadata-worker.mjs) say to each other. Changes go
// one way, one statement of one entry each; a snapshot comes back as the whole database file's
// bytes (transferred).

export type ToMetadata =
  | {
      readonly type: 'open';
      /** The database file's bytes, or none for a new database. */
      readonly bytes?: Uint8Array;
      readonly sqlWasmPath: string;
      /** Run once opened: the schema. */
      readonly setup: readonly string[];
      /** Columns a database written before they existed lacks: added (empty) when missing. */
      readonly addedColumns: readonly {
        readonly table: string;
        readonly column: string;
        readonly type: string;
      }[];
      /** Its rows, answered with `opened`. */
      readonly select: string;
    }
  | { readonly type: 'run'; readonly sql: string; readonly values: readonly SqlValue[] }
  /** The database as a file, with every change sent before this message. */
  | { readonly type: 'export'; readonly requestId: number };

export type FromMetadata =
  | { readonly type: 'opened'; readonly rows: readonly Record<string, SqlValue>[] }
  | { readonly type: 'open-failed'; readonly message: string }
  | {
      readonly type: 'exported';
      readonly requestId: number;
      readonly bytes?: Uint8Array;
      /** A change that SQLite refused since the last export: the file is not written. */
      readonly error?: string;
    };
