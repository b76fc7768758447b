import type { SqlValue } from 'sql.js';
import type { TraceEntry, TraceStatus } from '../api-types.ts';

// The metadata's one table: its schema, and a trace entry as a row and back. Shared by the event
// loop (which keeps the entries) and the metadata thread (which keeps them in SQLite).

export const schema = `
CREATE TABLE IF NOT EXISTS traces (
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  title TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  op_count INTEGER NOT NULL DEFAULT 0,
  span_ns REAL NOT NULL DEFAULT 0,
  format TEXT NOT NULL,
  backend TEXT,
  target TEXT,
  reason TEXT,
  preset TEXT,
  file_name TEXT,
  file_bytes INTEGER,
  warnings TEXT,
  content_sha256 TEXT,
  merge_key TEXT
);
CREATE INDEX IF NOT EXISTS traces_created ON traces(created_at);
`;

export type EntryPatch = Partial<Omit<TraceEntry, 'id' | 'position'>>;

/** Each stored field of an entry and its column; `warnings` is stored as JSON text. */
const columnOf = {
  id: 'id',
  source: 'source',
  title: 'title',
  status: 'status',
  createdAt: 'created_at',
  finishedAt: 'finished_at',
  opCount: 'op_count',
  spanNs: 'span_ns',
  format: 'format',
  backend: 'backend',
  target: 'target',
  reason: 'reason',
  preset: 'preset',
  fileName: 'file_name',
  fileBytes: 'file_bytes',
  warnings: 'warnings',
  contentSha256: 'content_sha256',
  mergeKey: 'merge_key',
} as const;
type Field = keyof typeof columnOf;
const fields = Object.keys(columnOf) as Field[];

/**
 * An entry as the database keeps it: only the stored fields, and none that is undefined (the
 * answer-only `alreadyImported` and `position` are never stored).
 */
export function storedEntry(entry: TraceEntry): TraceEntry {
  const kept: Record<string, unknown> = {};
  for (const field of fields) {
    if (entry[field] !== undefined) {
      kept[field] = entry[field];
    }
  }
  return kept as unknown as TraceEntry;
}

/** `entry` with the patch's stored fields set; a field patched to undefined is cleared. */
export function patched(entry: TraceEntry, patch: EntryPatch): TraceEntry {
  const next: Record<string, unknown> = { ...entry };
  for (const [key, value] of Object.entries(patch)) {
    if (key !== 'id' && key in columnOf) {
      next[key] = value;
    }
  }
  return storedEntry(next as unknown as TraceEntry);
}

/** INSERT OR REPLACE of a whole entry: the columns, and the values in their order. */
export function upsertOf(entry: TraceEntry): { sql: string; values: SqlValue[] } {
  const values = fields.map((field): SqlValue => {
    const value = entry[field];
    if (value === undefined) {
      return null;
    }
    return field === 'warnings' ? JSON.stringify(value) : (value as SqlValue);
  });
  const columns = fields.map((field) => columnOf[field]);
  return {
    sql: `INSERT OR REPLACE INTO traces (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    values,
  };
}

/** The rows' query when the database is opened (rowToEntry reads each). */
export const selectAll = 'SELECT * FROM traces';

/** Columns added since the first schema, which an older database gains (empty) when opened. */
export const addedColumns = [
  { table: 'traces', column: 'content_sha256', type: 'TEXT' },
  { table: 'traces', column: 'merge_key', type: 'TEXT' },
] as const;

/** A row as an entry. */
export function rowToEntry(row: Record<string, SqlValue>): TraceEntry {
  const text = (key: string): string | undefined => {
    const value = row[key];
    return typeof value === 'string' ? value : undefined;
  };
  const num = (key: string): number | undefined => {
    const value = row[key];
    return typeof value === 'number' ? value : undefined;
  };
  const warnings = text('warnings');
  return storedEntry({
    id: text('id') ?? '',
    source: text('source') === 'import' ? 'import' : 'run',
    title: text('title') ?? '',
    status: (text('status') ?? 'failed') as TraceStatus,
    createdAt: text('created_at') ?? '',
    opCount: num('op_count') ?? 0,
    spanNs: num('span_ns') ?? 0,
    format: text('format') ?? '',
    finishedAt: text('finished_at'),
    backend: text('backend') as TraceEntry['backend'],
    target: text('target'),
    reason: text('reason'),
    preset: text('preset'),
    fileName: text('file_name'),
    fileBytes: num('file_bytes'),
    contentSha256: text('content_sha256'),
    mergeKey: text('merge_key'),
    warnings: warnings === undefined ? undefined : (JSON.parse(warnings) as string[]),
  });
}

/** Newest first, as `ORDER BY created_at DESC, id DESC` orders them (byte order of the text). */
export function newestFirst(a: TraceEntry, b: TraceEntry): number {
  if (a.createdAt !== b.createdAt) {
    return a.createdAt < b.createdAt ? 1 : -1;
  }
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
