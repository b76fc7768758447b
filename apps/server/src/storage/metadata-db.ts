import { existsSync } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { TraceEntry } from '../api-types.ts';
import { besideBundle } from '../workers/thread-script.ts';
import { writeFileAtomic } from './atomic-file.ts';
import type { FromMetadata, ToMetadata } from './metadata-protocol.ts';
import type { EntryPatch } from './metadata-rows.ts';
import {
  addedColumns,
  newestFirst,
  patched,
  rowToEntry,
  schema,
  selectAll,
  storedEntry,
  upsertOf,
} from './metadata-rows.ts';

export type { EntryPatch } from './metadata-rows.ts';

/** A stored row. */
export interface StoredTrace {
  readonly entry: TraceEntry;
}

// A plain module, beside this one or beside the bundle: the thread needs no TypeScript loader.
const metadataScript = new URL('./metadata-worker.mjs', import.meta.url);

/**
 * sql.js's WebAssembly file: the one given, the one shipped beside a bundle, or the one inside
 * the sql.js package (resolved, never a fixed path).
 */
function sqlWasm(given: string | undefined): string {
  return (
    given ??
    besideBundle('sql-wasm.wasm') ??
    createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm')
  );
}

/**
 * Trace metadata: SQLite (sql.js) in its own thread (metadata-worker.mjs), written to `streamscope.db` by temp file +
 * rename, so the file on disk is always a whole database.
 *
 * The event loop keeps the entries in a map (reads are lookups) and sends each change to the
 * metadata thread, one entry's worth of work. Changes that come while a write is on its way are
 * coalesced into the next one; the thread exports the database and the loop writes the bytes
 * with asynchronous I/O. So a change costs the loop O(entry) whatever the database's size.
 */
export class MetadataDb {
  private readonly entries = new Map<string, TraceEntry>();
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private closed = false;
  private exitCode: number | undefined;
  private nextRequestId = 1;
  private readonly replies = new Map<number, (message: FromMetadata) => void>();

  private constructor(
    private readonly thread: Worker,
    private readonly filePath: string,
    entries: readonly TraceEntry[],
  ) {
    for (const entry of entries) {
      this.entries.set(entry.id, entry);
    }
  }

  /** Opens the database file, or starts a new one; a corrupt file is set aside, not lost. */
  static async open(
    filePath: string,
    sqlWasmPath?: string,
  ): Promise<{ db: MetadataDb; warning?: string }> {
    const thread = new Worker(metadataScript);
    const next = (): Promise<FromMetadata> =>
      new Promise((resolve, reject) => {
        const onExit = (code: number): void =>
          reject(new Error(`the metadata thread stopped (exit code ${code})`));
        thread.once('error', reject);
        thread.once('exit', onExit);
        thread.once('message', (message: FromMetadata) => {
          thread.off('error', reject);
          thread.off('exit', onExit);
          resolve(message);
        });
      });
    const opening = {
      type: 'open',
      sqlWasmPath: sqlWasm(sqlWasmPath),
      setup: [schema],
      addedColumns,
      select: selectAll,
    } as const;
    try {
      let warning: string | undefined;
      const bytes = existsSync(filePath) ? new Uint8Array(await readFile(filePath)) : undefined;
      post(thread, bytes === undefined ? opening : { ...opening, bytes });
      let answer = await next();
      if (answer.type === 'open-failed' && bytes !== undefined) {
        const aside = `${filePath}.corrupt-${Date.now()}`;
        await rename(filePath, aside);
        warning = `metadata database was unreadable (${answer.message}); moved to ${aside} and rebuilt from the trace files`;
        post(thread, opening);
        answer = await next();
      }
      if (answer.type !== 'opened') {
        throw new Error(
          `the metadata database could not be opened: ${answer.type === 'open-failed' ? answer.message : answer.type}`,
        );
      }
      const store = new MetadataDb(thread, filePath, answer.rows.map(rowToEntry));
      thread.on('message', (message: FromMetadata) => store.onMessage(message));
      thread.on('exit', (code) => store.onExit(code));
      // A thread that fails exits next: its waiting writes are failed there, not here. Without
      // a listener, its error would end the server.
      thread.on('error', () => undefined);
      // Idle, the thread never keeps the process alive; while a write waits on it, it does.
      thread.unref();
      return warning === undefined ? { db: store } : { db: store, warning };
    } catch (error) {
      await thread.terminate();
      throw error;
    }
  }

  insert(entry: TraceEntry): void {
    const stored = storedEntry(entry);
    this.entries.set(stored.id, stored);
    this.send({ type: 'run', ...upsertOf(stored) });
  }

  update(id: string, patch: EntryPatch): void {
    const entry = this.entries.get(id);
    if (entry === undefined) {
      return;
    }
    const next = patched(entry, patch);
    this.entries.set(id, next);
    this.send({ type: 'run', ...upsertOf(next) });
  }

  delete(id: string): void {
    this.entries.delete(id);
    this.send({ type: 'run', sql: 'DELETE FROM traces WHERE id = ?', values: [id] });
  }

  get(id: string): StoredTrace | undefined {
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : { entry };
  }

  /** Every row, newest first. */
  list(): StoredTrace[] {
    return [...this.entries.values()].sort(newestFirst).map((entry) => ({ entry }));
  }

  private send(message: ToMetadata): void {
    if (this.closed) {
      return;
    }
    post(this.thread, message);
    this.schedulePersist();
  }

  private schedulePersist(): void {
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
        await writeFileAtomic(this.filePath, await this.exportBytes());
      });
    // Handled here, so a failed write that nobody flushes cannot end the process.
    void this.writing.catch(() => undefined);
  }

  /** The database file as the metadata thread has it now, every change sent so far included. */
  private exportBytes(): Promise<Uint8Array> {
    const requestId = this.nextRequestId++;
    return new Promise((resolve, reject) => {
      if (this.exitCode !== undefined) {
        reject(new Error(`the metadata thread stopped (exit code ${this.exitCode})`));
        return;
      }
      this.thread.ref();
      this.replies.set(requestId, (message) => {
        this.replies.delete(requestId);
        if (this.replies.size === 0) {
          this.thread.unref();
        }
        if (message.type !== 'exported') {
          reject(new Error(`the metadata thread stopped before writing (${message.type})`));
        } else if (message.bytes === undefined) {
          reject(new Error(`the metadata database refused a change: ${message.error}`));
        } else {
          resolve(message.bytes);
        }
      });
      post(this.thread, { type: 'export', requestId });
    });
  }

  private onMessage(message: FromMetadata): void {
    if (message.type === 'exported') {
      this.replies.get(message.requestId)?.(message);
    }
  }

  private onExit(code: number): void {
    this.exitCode = code;
    for (const reply of [...this.replies.values()]) {
      reply({ type: 'open-failed', message: `exit code ${code}` });
    }
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
      await this.thread.terminate();
    }
  }
}

function post(thread: Worker, message: ToMetadata): void {
  thread.postMessage(message);
}
