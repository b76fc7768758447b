/** Main thread → local import worker. */
export type LocalImportRequest =
  | { readonly type: 'import'; readonly file: Blob; readonly fileName: string }
  | { readonly type: 'cancel' };

/** Local import worker → main thread. The trace travels as codec bytes (its buffer transferred). */
export type LocalImportResponse =
  | {
      readonly type: 'progress';
      readonly readBytes: number;
      readonly totalBytes: number;
      /** A SQLite import, all read: the table it is reading now. */
      readonly table?: string;
    }
  | {
      readonly type: 'done';
      readonly traceBytes: Uint8Array;
      /** analyzeTrace's result as plain JSON data, as GET /api/traces/{id}/analysis serves it. */
      readonly analysis: unknown;
      readonly warnings: readonly string[];
    }
  | {
      readonly type: 'failed';
      readonly message: string;
      /** The place in the file the importer named (line, table, field), when it named one. */
      readonly place?: string;
      readonly cancelled: boolean;
    };
