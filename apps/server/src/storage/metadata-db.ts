import { existsSync } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { BindParams, Database, SqlJsStatic, SqlValue } from 'sql.js';
import initSqlJs from 'sql.js';
import type { TraceEntry, TraceStatus } from '../api-types.ts';
import { writeFileAtomic } from './atomic-file.ts';

const sqlModules = new Map<string, Promise<SqlJsStatic>>();

/**
 * sql.js with its WebAssembly file: by default the one inside the sql.js package (resolved, never
 * a fixed path); a bundled server passes the file it ships beside itself.
 */
function loadSql(wasmPath?: string): Promise<SqlJsStatic> {
  const path = wasmPath ?? createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
  let module = sqlModules.get(path);
  if (module === undefined) {
    module = initSqlJs({ locateFile: () => path });
    sqlModules.set(path, module);
  }
  return module;
}

const schema = `
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
  content_sha256 TEXT
);
CREATE INDEX IF NOT EXISTS traces_created ON traces(created_at);
`;

/** A stored row. */
export interface StoredTrace {
  readonly entry: TraceEntry;
}

type Column = keyof typeof columnOf;
const columnOf = {
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
  contentSha256: 'content_sha256',
} as const;

export type EntryPatch = Partial<Omit<TraceEntry, 'id' | 'position'>>;

/**
 * Trace metadata in SQLite (sql.js, in memory), written to `streamscope.db` after each change by
 * temp file + rename, so the file on disk is always a whole database.
 */
export class MetadataDb {
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private closed = false;

  private constructor(
    private readonly db: Database,
    private readonly filePath: string,
  ) {}

  /** Opens the database file, or starts a new one; a corrupt file is set aside, not lost. */
  static async open(
    filePath: string,
    sqlWasmPath?: string,
  ): Promise<{ db: MetadataDb; warning?: string }> {
    const SQL = await loadSql(sqlWasmPath);
    let warning: string | undefined;
    let db: Database;
    if (existsSync(filePath)) {
      try {
        db = new SQL.Database(await readFile(filePath));
        db.exec('SELECT count(*) FROM sqlite_master');
      } catch (error) {
        const aside = `${filePath}.corrupt-${Date.now()}`;
        await rename(filePath, aside);
        warning = `metadata database was unreadable (${(error as Error).message}); moved to ${aside} and rebuilt from the trace files`;
        db = new SQL.Database();
      }
    } else {
      db = new SQL.Database();
    }
    db.exec(schema);
    addMissingColumns(db);
    const store = new MetadataDb(db, filePath);
    return warning === undefined ? { db: store } : { db: store, warning };
  }

  insert(entry: TraceEntry): void {
    this.db.run(
      `INSERT INTO traces (id, source, title, status, created_at, finished_at, op_count, span_ns, format,
        backend, target, reason, preset, file_name, file_bytes, warnings, content_sha256)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        entry.id,
        entry.source,
        entry.title,
        entry.status,
        entry.createdAt,
        entry.finishedAt ?? null,
        entry.opCount,
        entry.spanNs,
        entry.format,
        entry.backend ?? null,
        entry.target ?? null,
        entry.reason ?? null,
        entry.preset ?? null,
        entry.fileName ?? null,
        entry.fileBytes ?? null,
        entry.warnings === undefined ? null : JSON.stringify(entry.warnings),
        entry.contentSha256 ?? null,
      ],
    );
    this.schedulePersist();
  }

  update(id: string, patch: EntryPatch): void {
    const sets: string[] = [];
    const values: SqlValue[] = [];
    for (const [key, value] of Object.entries(patch) as [string, unknown][]) {
      if (key === 'warnings') {
        sets.push('warnings = ?');
        values.push(value === undefined ? null : JSON.stringify(value));
      } else if (key in columnOf) {
        sets.push(`${columnOf[key as Column]} = ?`);
        values.push(value === undefined ? null : (value as SqlValue));
      }
    }
    if (sets.length === 0) {
      return;
    }
    this.db.run(`UPDATE traces SET ${sets.join(', ')} WHERE id = ?`, [...values, id]);
    this.schedulePersist();
  }

  delete(id: string): void {
    this.db.run('DELETE FROM traces WHERE id = ?', [id]);
    this.schedulePersist();
  }

  get(id: string): StoredTrace | undefined {
    return this.select('WHERE id = ?', [id])[0];
  }

  /** Every row, newest first. */
  list(): StoredTrace[] {
    return this.select('ORDER BY created_at DESC, id DESC', []);
  }

  private select(clause: string, params: BindParams): StoredTrace[] {
    const statement = this.db.prepare(`SELECT * FROM traces ${clause}`);
    try {
      statement.bind(params);
      const rows: StoredTrace[] = [];
      while (statement.step()) {
        rows.push(rowToStored(statement.getAsObject()));
      }
      return rows;
    } finally {
      statement.free();
    }
  }

  private schedulePersist(): void {
    if (this.closed) {
      return;
    }
    if (this.dirty) {
      return; // a write is already queued and will carry this change
    }
    this.dirty = true;
    // A failed write (a full disk) fails the flushes that wait for it, but not the next change:
    // that one writes the whole database again.
    this.writing = this.writing
      .catch(() => undefined)
      .then(async () => {
        this.dirty = false;
        await writeFileAtomic(this.filePath, this.db.export());
      });
    // Handled here, so a failed write that nobody flushes cannot end the process.
    void this.writing.catch(() => undefined);
  }

  /** Resolves when every change so far is on disk. */
  async flush(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.writing) {
      seen = this.writing;
      await seen;
    }
  }

  /** Closes the database even when its last write failed (and then rejects with that failure). */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.closed = true;
      this.db.close();
    }
  }
}

function rowToStored(row: Record<string, SqlValue>): StoredTrace {
  const text = (key: string): string | undefined => {
    const value = row[key];
    return typeof value === 'string' ? value : undefined;
  };
  const num = (key: string): number | undefined => {
    const value = row[key];
    return typeof value === 'number' ? value : undefined;
  };
  const warnings = text('warnings');
  const entry: TraceEntry = {
    id: text('id') ?? '',
    source: text('source') === 'import' ? 'import' : 'run',
    title: text('title') ?? '',
    status: (text('status') ?? 'failed') as TraceStatus,
    createdAt: text('created_at') ?? '',
    opCount: num('op_count') ?? 0,
    spanNs: num('span_ns') ?? 0,
    format: text('format') ?? '',
    ...optional('finishedAt', text('finished_at')),
    ...optional('backend', text('backend') as TraceEntry['backend']),
    ...optional('target', text('target')),
    ...optional('reason', text('reason')),
    ...optional('preset', text('preset')),
    ...optional('fileName', text('file_name')),
    ...optional('fileBytes', num('file_bytes')),
    ...optional('contentSha256', text('content_sha256')),
    ...optional(
      'warnings',
      warnings === undefined ? undefined : (JSON.parse(warnings) as string[]),
    ),
  };
  return { entry };
}

/** A database written before a column existed gets it (empty for the rows it has). */
function addMissingColumns(db: Database): void {
  const columns = db.exec('PRAGMA table_info(traces)')[0]?.values.map((row) => row[1]) ?? [];
  if (!columns.includes('content_sha256')) {
    db.exec('ALTER TABLE traces ADD COLUMN content_sha256 TEXT');
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
