import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { TraceEntry } from '../api-types.ts';
import { ApiError } from '../http/api-error.ts';
import type { TraceStore } from '../storage/trace-store.ts';
import { newId } from '../storage/trace-store.ts';
import type { ContentCoding, DecodeFailure } from './content-encoding.ts';
import { badEncoding, decodersFor } from './content-encoding.ts';
import { asImportError, cancelledError, isDiskFull, tooLarge } from './import-failures.ts';
import type { ImportedTrace } from './imported-trace.ts';
import { storeImported } from './store-imported.ts';

/** What an uploader can see while its file is received and parsed. */
export interface UploadProgress {
  readonly uploadId: string;
  readonly phase:
    'receiving' | 'exporting' | 'parsing' | 'storing' | 'done' | 'failed' | 'cancelled';
  readonly receivedBytes: number;
  /** From Content-Length, when the client sent it. */
  readonly totalBytes?: number;
  /** Bytes of the file the parser has read. */
  readonly parsedBytes?: number;
  /**
   * Bytes of the file the parser reads, when it is not the upload: an Nsight Systems report's
   * SQLite export, which nsys made in the `exporting` phase.
   */
  readonly parseTotalBytes?: number;
  /** A SQLite export, all read: the table being read now. */
  readonly table?: string;
  readonly traceId?: string;
  readonly error?: string;
}

/**
 * Parses an uploaded file that is not a streamscope container (the importers' job), off the
 * event loop, and resolves with the trace in the stored form.
 */
export type ForeignImporter = (
  filePath: string,
  options: {
    readonly fileName: string;
    readonly maxBytes: number;
    /** The most ops the trace may keep (limits.importOps). */
    readonly maxOps?: number;
    readonly signal: AbortSignal;
    /**
     * Where the stored form is written: `<outBase>.sstrace`, and a big trace's pyramid
     * `<outBase>.tiles`; the import service moves them into the store or removes them.
     */
    readonly outBase: string;
    readonly onProgress: (parsedBytes: number) => void;
    /** A SQLite export, once every byte is read, names each table it moves on to. */
    readonly onStage?: (table: string) => void;
    /** An Nsight Systems report: nsys exports it now, before the parse. */
    readonly onExporting?: () => void;
    /** The report's SQLite export is made; the parse reads it (`sqliteBytes`), not the upload. */
    readonly onExported?: (sqliteBytes: number) => void;
  },
) => Promise<ImportedTrace>;

/** Checks an uploaded streamscope container (off the event loop) and resolves with its stored form. */
export type ContainerReader = (
  filePath: string,
  options: {
    readonly fileName: string;
    readonly signal: AbortSignal;
    /** The most ops and ranges the trace may hold (limits.importOps), as an import keeps. */
    readonly maxOps?: number;
    /** As ForeignImporter's. */
    readonly outBase: string;
  },
) => Promise<ImportedTrace>;

export interface UploadRequest {
  readonly body: NodeJS.ReadableStream;
  readonly fileName: string;
  readonly uploadId: string;
  readonly declaredBytes?: number;
  /** The body's Content-Encoding, in the order applied: undone before the file is stored. */
  readonly contentCodings?: readonly ContentCoding[];
  /** Aborted when the client goes away: the import is then `cancelled`. */
  readonly signal: AbortSignal;
  /**
   * 'offer': bytes an earlier import already had are not imported again; the answer is that
   * import's entry with `alreadyImported`. 'import' (the default) imports them anyway.
   */
  readonly ifDuplicate?: 'import' | 'offer';
}

const containerMagic = [0x53, 0x53, 0x42, 0x31]; // 'SSB1', the codec's batch magic
const progressKeepMs = 60_000;

/**
 * Uploads: the body streams to `uploads/ID.part` (size-limited), is parsed, and only a whole,
 * valid trace is written (atomically) to `traces/` and listed. The part file is always removed;
 * a crash mid-upload leaves only a part file, which startup deletes.
 */
export class ImportService {
  private readonly progressById = new Map<string, UploadProgress>();
  /** Uploads being received, parsed or stored: what cancels each, and when it has ended. */
  private readonly running = new Map<
    string,
    { readonly canceller: AbortController; readonly ended: Promise<void> }
  >();

  constructor(
    private readonly store: TraceStore,
    private readonly maxBytes: number,
    private readonly maxOps: number,
    private readonly readContainer: ContainerReader,
    private readonly importForeign: ForeignImporter | undefined,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  progress(uploadId: string): UploadProgress | undefined {
    return this.progressById.get(uploadId);
  }

  /**
   * Stops an upload wherever it is (receiving, parsing or storing) and resolves, once it has
   * ended, with its final progress: `cancelled`, or `done`/`failed` when it ended first.
   */
  async cancel(uploadId: string): Promise<UploadProgress | undefined> {
    const job = this.running.get(uploadId);
    if (job !== undefined) {
      job.canceller.abort();
      await job.ended;
    }
    return this.progressById.get(uploadId);
  }

  /** Refuses (413) an upload whose declared size is over the limit, before it is read. */
  checkDeclaredBytes(declaredBytes: number | undefined): void {
    if (declaredBytes !== undefined && declaredBytes > this.maxBytes) {
      throw tooLarge(this.maxBytes, declaredBytes);
    }
  }

  async receive(request: UploadRequest): Promise<TraceEntry> {
    const { uploadId, fileName } = request;
    this.checkDeclaredBytes(request.declaredBytes);
    if (this.running.has(uploadId)) {
      throw new ApiError(
        409,
        'conflict',
        `upload '${uploadId}' is already in progress`,
        'uploadId',
      );
    }
    const canceller = new AbortController();
    let markEnded = (): void => undefined;
    const ended = new Promise<void>((resolve) => {
      markEnded = resolve;
    });
    this.running.set(uploadId, { canceller, ended });
    const signal = AbortSignal.any([request.signal, canceller.signal]);
    const partPath = path.join(this.store.uploadsDir, `${newId()}.part`);
    const base = {
      uploadId,
      ...(request.declaredBytes !== undefined ? { totalBytes: request.declaredBytes } : {}),
    };
    let receivedBytes = 0;
    let storedBytes = 0;
    this.setProgress({ ...base, phase: 'receiving', receivedBytes });
    let decodeFailure: DecodeFailure | undefined;
    // The final phase is reported only after the part file is gone, so an uploader that sees
    // 'done' or 'failed' never finds a leftover of its upload.
    let final: UploadProgress | undefined;
    let imported: ImportedTrace | undefined;
    try {
      const limit = this.maxBytes;
      // Bytes on the wire (progress, against Content-Length) and bytes stored (decoded): both
      // are limited, so an encoded body cannot inflate past the limit on disk.
      const received = new Transform({
        transform: (chunk: Buffer, _encoding, callback) => {
          receivedBytes += chunk.length;
          if (receivedBytes > limit) {
            callback(tooLarge(limit));
            return;
          }
          this.setProgress({ ...base, phase: 'receiving', receivedBytes });
          callback(null, chunk);
        },
      });
      // The decoded bytes are hashed as they pass (no second read) to find a re-import.
      const hash = createHash('sha256');
      const stored = new Transform({
        transform: (chunk: Buffer, _encoding, callback) => {
          storedBytes += chunk.length;
          hash.update(chunk);
          callback(storedBytes > limit ? tooLarge(limit) : null, chunk);
        },
      });
      const decoders = decodersFor(request.contentCodings ?? []);
      const file = createWriteStream(partPath, { flags: 'wx', mode: 0o600 });
      // A failing stage errors first; pipeline then destroys the others with the same error. So
      // the first error seen tells a broken encoding from a limit, a full disk or a lost client.
      let firstError: unknown;
      const stages: NodeJS.EventEmitter[] = [request.body, received, stored, file];
      for (const stage of stages) {
        stage.once('error', (error: unknown) => (firstError ??= error));
      }
      for (const { coding, decoder } of decoders) {
        decoder.once('error', (error) => {
          if (firstError === undefined) {
            firstError = error;
            decodeFailure = { coding, error };
          }
        });
      }
      await pipeline([request.body, received, ...decoders.map((d) => d.decoder), stored, file], {
        signal,
      });
      if (storedBytes === 0) {
        throw new ApiError(400, 'empty-upload', `'${fileName}' is empty`);
      }
      const contentSha256 = hash.digest('hex');
      const earlier =
        request.ifDuplicate === 'offer'
          ? this.store
              .list()
              .find((e) => e.source === 'import' && e.contentSha256 === contentSha256)
          : undefined;
      if (earlier !== undefined) {
        final = { ...base, phase: 'done', receivedBytes, traceId: earlier.id };
        return { ...earlier, alreadyImported: true };
      }
      this.setProgress({ ...base, phase: 'parsing', receivedBytes, parsedBytes: 0 });
      let parsedBytes = 0;
      // A report's export, once nsys has made it: what the parse's bytes are of.
      let exported: { parseTotalBytes: number } | Record<string, never> = {};
      imported = await this.parse(partPath, fileName, signal, {
        onProgress: (bytes) => {
          parsedBytes = bytes;
          this.setProgress({ ...base, ...exported, phase: 'parsing', receivedBytes, parsedBytes });
        },
        onStage: (table) =>
          this.setProgress({
            ...base,
            ...exported,
            phase: 'parsing',
            receivedBytes,
            parsedBytes,
            table,
          }),
        onExporting: () => this.setProgress({ ...base, phase: 'exporting', receivedBytes }),
        onExported: (sqliteBytes) => {
          exported = { parseTotalBytes: sqliteBytes };
          this.setProgress({ ...base, ...exported, phase: 'parsing', receivedBytes, parsedBytes });
        },
      });
      throwIfCancelled(signal, fileName);
      this.setProgress({ ...base, phase: 'storing', receivedBytes });
      const { title } = imported;
      const entry = await storeImported(
        this.store,
        imported,
        { title: title === 'untitled' || title === '' ? fileName : title, fileName, contentSha256 },
        this.log,
      );
      final = { ...base, phase: 'done', receivedBytes, traceId: entry.id };
      return entry;
    } catch (error) {
      // A cancel, or a client that went away (its body stream then fails with ECONNRESET).
      const cancelled = signal.aborted;
      const problem = cancelled
        ? cancelledError(fileName, canceller.signal.aborted ? undefined : 'the client disconnected')
        : decodeFailure !== undefined && decodeFailure.error === error
          ? badEncoding(decodeFailure, fileName)
          : asImportError(error, fileName);
      if (!cancelled) {
        this.logFailure(fileName, error, problem);
      }
      final = {
        ...base,
        phase: cancelled ? 'cancelled' : 'failed',
        receivedBytes,
        error: problem.message,
      };
      throw problem;
    } finally {
      await rm(partPath, { force: true });
      // A trace and pyramid made at import and not moved into the store (a failure, a cancel).
      if (imported !== undefined) {
        await rm(imported.tracePath, { force: true });
      }
      if (imported?.tilesPath !== undefined) {
        await rm(imported.tilesPath, { force: true });
      }
      if (final !== undefined) {
        this.setProgress(final);
      }
      this.running.delete(uploadId);
      markEnded();
      setTimeout(() => this.progressById.delete(uploadId), progressKeepMs).unref();
    }
  }

  /** Server-side failures go to the log (the uploader sees only the short message). */
  private logFailure(fileName: string, error: unknown, problem: ApiError): void {
    if (problem.status < 500) {
      return;
    }
    const detail =
      isDiskFull(error) || !(error instanceof Error)
        ? String(error)
        : (error.stack ?? error.message);
    this.log(`import of '${fileName}': ${problem.message} (${detail})`);
  }

  private async parse(
    partPath: string,
    fileName: string,
    signal: AbortSignal,
    progress: Pick<
      Parameters<ForeignImporter>[1],
      'onProgress' | 'onStage' | 'onExporting' | 'onExported'
    >,
  ): Promise<ImportedTrace> {
    if (await startsWith(partPath, containerMagic)) {
      return this.readContainer(partPath, {
        fileName,
        signal,
        maxOps: this.maxOps,
        outBase: partPath,
      });
    }
    if (this.importForeign === undefined) {
      throw new ApiError(
        415,
        'unsupported-format',
        `'${fileName}' is not a streamscope trace, and this server has no importers for other formats`,
      );
    }
    return this.importForeign(partPath, {
      fileName,
      maxBytes: this.maxBytes,
      maxOps: this.maxOps,
      signal,
      outBase: partPath,
      ...progress,
    });
  }

  private setProgress(progress: UploadProgress): void {
    this.progressById.set(progress.uploadId, progress);
  }
}

async function startsWith(filePath: string, magic: readonly number[]): Promise<boolean> {
  const handle = await open(filePath, 'r');
  try {
    const head = Buffer.alloc(magic.length);
    const { bytesRead } = await handle.read(head, 0, magic.length, 0);
    return bytesRead === magic.length && magic.every((byte, i) => head[i] === byte);
  } finally {
    await handle.close();
  }
}

function throwIfCancelled(signal: AbortSignal, fileName: string): void {
  if (signal.aborted) {
    throw cancelledError(fileName);
  }
}
