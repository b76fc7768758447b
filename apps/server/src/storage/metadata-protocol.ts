import type { TraceEntry } from '../api-types.ts';

// What the event loop and the metadata thread (metadata-worker.ts) say to each other. Changes go
// one way, one entry each; a snapshot comes back as the whole database file's bytes (transferred).

export type ToMetadata =
  /** The database file's bytes, or none for a new database. */
  | { readonly type: 'open'; readonly bytes?: Uint8Array; readonly sqlWasmPath?: string }
  | { readonly type: 'put'; readonly entry: TraceEntry }
  | { readonly type: 'delete'; readonly id: string }
  /** The database as a file, with every change sent before this message. */
  | { readonly type: 'export'; readonly requestId: number }
  | { readonly type: 'close' };

export type FromMetadata =
  | { readonly type: 'opened'; readonly entries: readonly TraceEntry[] }
  | { readonly type: 'open-failed'; readonly message: string }
  | {
      readonly type: 'exported';
      readonly requestId: number;
      readonly bytes?: Uint8Array;
      /** A change that SQLite refused since the last export: the file is not written. */
      readonly error?: string;
    }
  | { readonly type: 'closed' };
