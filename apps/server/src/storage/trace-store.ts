import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadTrace } from '@streamscope/trace';
import { tileFileExtension } from './tile-format.ts';
import type { TraceEntry } from '../api-types.ts';
import { terminalStatuses } from '../api-types.ts';
import { tempSuffix, traceFileExtension, writeFileAtomic } from './atomic-file.ts';
import { DerivedAnswers } from './derived-answers.ts';
import type { EntryPatch, StoredTrace } from './metadata-db.ts';
import { MetadataDb } from './metadata-db.ts';

/** Beside a run's trace file: where each live frame ends in it (Float64 LE byte offsets). */
export const framesFileExtension = '.frames';
const idPattern = /^[A-Za-z0-9_-]{1,64}$/;
/** Memory for kept whole-trace answers (a 139M-op trace's analysis JSON is a few hundred KB). */
const derivedAnswerBytes = 64 * 1024 * 1024;

/** A fresh id: 12 url-safe characters starting with a letter or digit, usable as a file name. */
export function newId(): string {
  for (;;) {
    // Never a leading '-' or '_': ids appear on command lines and in file names.
    const id = randomBytes(9).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) {
      return id;
    }
  }
}

export function isValidId(id: string): boolean {
  return idPattern.test(id);
}

/**
 * The data directory: `streamscope.db` (metadata), `traces/ID.sstrace` (codec containers) and
 * `uploads/` (uploads being received). A trace file is written whole (temp + rename) before its
 * row says it is finished, so after a crash every listed trace opens and a half-written upload
 * never appears: startup deletes whatever a crash left half-done.
 */
export class TraceStore {
  readonly tracesDir: string;
  readonly uploadsDir: string;
  /** Whole-trace answers (analysis, range lanes) kept while the server runs. */
  readonly derived = new DerivedAnswers(derivedAnswerBytes);

  private constructor(
    readonly dataDir: string,
    private readonly db: MetadataDb,
  ) {
    this.tracesDir = path.join(dataDir, 'traces');
    this.uploadsDir = path.join(dataDir, 'uploads');
  }

  /** Opens (or creates) a data directory and recovers from a crash; returns what it repaired. */
  static async open(
    dataDir: string,
    sqlWasmPath?: string,
  ): Promise<{ store: TraceStore; notes: string[] }> {
    await mkdir(dataDir, { recursive: true });
    const { db, warning } = await MetadataDb.open(
      path.join(dataDir, 'streamscope.db'),
      sqlWasmPath,
    );
    const store = new TraceStore(dataDir, db);
    const notes = warning === undefined ? [] : [warning];
    await mkdir(store.tracesDir, { recursive: true });
    await rm(store.uploadsDir, { recursive: true, force: true });
    await mkdir(store.uploadsDir, { recursive: true });
    notes.push(...(await store.recover()));
    return { store, notes };
  }

  private async recover(): Promise<string[]> {
    const notes: string[] = [];
    for (const dir of [this.dataDir, this.tracesDir]) {
      for (const name of await readdir(dir)) {
        if (name.endsWith(tempSuffix)) {
          await rm(path.join(dir, name), { force: true });
        }
      }
    }
    const known = new Set<string>();
    for (const { entry } of this.db.list()) {
      known.add(entry.id);
      const hasFile = existsSync(this.tracePath(entry.id));
      if (!terminalStatuses.has(entry.status)) {
        this.db.update(entry.id, {
          status: 'failed',
          reason: 'the server stopped before this run ended',
          finishedAt: new Date().toISOString(),
        });
        notes.push(`run ${entry.id} was ${entry.status} when the server stopped; marked failed`);
      } else if (!hasFile && (entry.status === 'finished' || entry.status === 'imported')) {
        this.db.delete(entry.id);
        notes.push(`trace ${entry.id} had no file; its row was removed`);
      }
    }
    for (const name of await readdir(this.tracesDir)) {
      // Frame ends or tiles of a trace that is gone (deleted, or never renamed into place).
      const extension = [framesFileExtension, tileFileExtension].find((e) => name.endsWith(e));
      if (extension !== undefined) {
        const id = name.slice(0, -extension.length);
        if (!existsSync(this.tracePath(id))) {
          await rm(path.join(this.tracesDir, name), { force: true });
        }
      }
    }
    for (const name of await readdir(this.tracesDir)) {
      const id = name.slice(0, -traceFileExtension.length);
      if (!name.endsWith(traceFileExtension) || known.has(id) || !isValidId(id)) {
        continue;
      }
      // Written whole but never recorded (a crash between rename and the row): list it again.
      try {
        const bytes = await readFile(this.tracePath(id));
        const trace = loadTrace(bytes);
        const isRun =
          trace.meta.sourceFormat.startsWith('streamscope-') &&
          trace.meta.sourceFormat !== 'streamscope-trace';
        this.db.insert({
          id,
          source: isRun ? 'run' : 'import',
          title: trace.meta.title,
          status: isRun ? 'finished' : 'imported',
          createdAt: trace.meta.createdAt ?? (await stat(this.tracePath(id))).mtime.toISOString(),
          opCount: trace.ops.count,
          spanNs: trace.spanNs(),
          format: trace.meta.sourceFormat,
          fileBytes: bytes.length,
        });
        notes.push(`trace file ${name} had no row; listed it again`);
      } catch (error) {
        notes.push(
          `trace file ${name} is unreadable and was left alone: ${(error as Error).message}`,
        );
      }
    }
    return notes;
  }

  tracePath(id: string): string {
    return path.join(this.tracesDir, `${id}${traceFileExtension}`);
  }

  /** The level-of-detail file beside the trace (tile-format.ts), made on first open. */
  tilesPath(id: string): string {
    return path.join(this.tracesDir, `${id}${tileFileExtension}`);
  }

  private framesPath(id: string): string {
    return path.join(this.tracesDir, `${id}${framesFileExtension}`);
  }

  /**
   * Records where a run's live frames end in its trace file, so a client can resume at any frame
   * after the run ended or the server restarted. Kept out of the database: it grows with the run.
   */
  async writeFrameEnds(id: string, frameEnds: readonly number[]): Promise<void> {
    await writeFileAtomic(this.framesPath(id), new Uint8Array(Float64Array.from(frameEnds).buffer));
  }

  /** The frame ends of a stored run, or undefined when none were kept (imports) or they do not fit the file. */
  async readFrameEnds(id: string, fileBytes: number): Promise<Float64Array | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.framesPath(id));
    } catch {
      return undefined;
    }
    if (bytes.length % 8 !== 0) {
      return undefined;
    }
    // A copy into its own buffer: aligned, and the file's bytes are let go.
    const ends = new Float64Array(bytes.length / 8);
    new Uint8Array(ends.buffer).set(bytes);
    const ordered = ends.every((end, i) => end > (i === 0 ? 0 : ends[i - 1]!));
    return ordered && ends.at(-1) === fileBytes ? ends : undefined;
  }

  list(): TraceEntry[] {
    return this.db.list().map((row) => row.entry);
  }

  get(id: string): StoredTrace | undefined {
    return this.db.get(id);
  }

  insert(entry: TraceEntry): void {
    this.db.insert(entry);
  }

  update(id: string, patch: EntryPatch): void {
    this.db.update(id, patch);
  }

  /** Writes a whole codec container atomically; returns its size in bytes. */
  async writeTraceFile(id: string, bytes: Uint8Array): Promise<number> {
    await writeFileAtomic(this.tracePath(id), bytes);
    return bytes.length;
  }

  /**
   * Moves a trace file written whole elsewhere in the data folder (by a worker, beside its
   * upload) to trace `id`'s place: a rename, nothing read or copied.
   */
  async adoptTraceFile(id: string, builtPath: string): Promise<void> {
    await rename(builtPath, this.tracePath(id));
  }

  async readTraceFile(id: string): Promise<Uint8Array> {
    return readFile(this.tracePath(id));
  }

  hasTraceFile(id: string): boolean {
    return existsSync(this.tracePath(id));
  }

  /** Removes the file first, then the row: a crash in between leaves a row that recovery drops. */
  async remove(id: string): Promise<void> {
    this.derived.forget(id);
    await rm(this.tracePath(id), { force: true });
    await rm(this.framesPath(id), { force: true });
    await rm(this.tilesPath(id), { force: true });
    this.db.delete(id);
    await this.db.flush();
  }

  flush(): Promise<void> {
    return this.db.flush();
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
