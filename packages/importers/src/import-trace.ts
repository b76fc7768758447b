import type { Trace } from '@streamscope/trace';
import { CodecError, loadTrace } from '@streamscope/trace';
import { readChromeTrace } from './chrome/read-chrome-trace.ts';
import { ImportError } from './import-error.ts';
import { ImportLimitError } from './io/limit-error.ts';
import { OpLimitReached } from './op-staging.ts';
import type { ImportSource } from './io/chunks.ts';
import { chunksOf, metered, peekHead, readAll, throwIfAborted, totalBytesOf } from './io/chunks.ts';
import { gunzip } from './io/gunzip.ts';
import type { SqlWasmOptions } from './nsys/load-sqljs.ts';
import { loadSqlJs, openOwnedDatabase } from './nsys/load-sqljs.ts';
import type { NsysJsonReader } from './nsys/nsys-json.ts';
import { readNsysJson } from './nsys/nsys-json.ts';
import { NsysSqliteReader } from './nsys/nsys-sqlite.ts';
import type { SqliteSource } from './nsys/sqlite-source.ts';
import { SqlJsSource } from './nsys/sqljs-source.ts';
import { FileSqliteSource } from './sqlite-reader/file-source.ts';
import type { RandomAccessFile } from './sqlite-reader/random-access.ts';
import { isRandomAccessFile } from './sqlite-reader/random-access.ts';
import { SqliteFormatError } from './sqlite-reader/sqlite-format-error.ts';
import type { ImportFormat } from './sniff.ts';
import { sniffHeadBytes, sniffOrThrow } from './sniff.ts';
import { TraceBuilder } from './trace-builder.ts';

export interface ImportOptions {
  /** Shown in errors and used as the trace title; the format is sniffed from content, not from it. */
  readonly fileName: string;
  /** Largest input accepted, compressed and inflated alike (default 2 GiB, what a browser tab holds). */
  readonly maxBytes?: number;
  /**
   * The most ops and ranges the trace may keep, together (default: no limit). A SQLite export
   * whose GPU activity and API call tables hold more rows than this is refused before they are
   * read; any other input when the op or range past it arrives.
   * Memory grows with ops kept, not with the file: `maxImportOpsFor` sizes this to a machine.
   */
  readonly maxOps?: number;
  readonly signal?: AbortSignal;
  /**
   * The input's size in bytes, for a source that cannot tell it (a stream of a file): the staging
   * is then sized as the input is read, instead of doubling. Blobs, bytes and files say their own.
   */
  readonly totalBytes?: number;
  /** Called after each chunk with the bytes read from the source so far. */
  readonly onProgress?: (bytesRead: number, totalBytes?: number) => void;
  /**
   * Called as a SQLite import moves on to its next table, after every byte was read (the bytes
   * are then all counted, but the work is not done): 'strings', 'kernels', 'copies', ….
   */
  readonly onStage?: (stage: string) => void;
  readonly sqlWasm?: SqlWasmOptions;
  /** How nsys JSON lines are read: `fast` (default) or `json-parse`, the naive reader kept for comparison. */
  readonly nsysJsonReader?: NsysJsonReader;
}

export interface ImportResult {
  readonly trace: Trace;
  readonly warnings: string[];
}

export const defaultMaxImportBytes = 2 * 1024 ** 3;

/**
 * Peak memory of an import per op it keeps, as measured (`pnpm bench scale`, and the 20M-GPU-op
 * runs of #22): staging, the op table, the correlation index, then the stored trace's encoding
 * and its tiles in a server worker. 79 bytes at 139M ops, 100 at 7M (fixed costs weigh more).
 */
export const importPeakBytesPerOp = 100;

/** The share of a machine's memory one import may take. */
export const importMemoryShare = 0.6;

/** The ops one import may keep on a machine (or container) of `memoryBytes`. */
export function maxImportOpsFor(memoryBytes: number): number {
  return Math.max(1, Math.floor((memoryBytes * importMemoryShare) / importPeakBytesPerOp));
}

/**
 * Imports an nsys JSON or SQLite export, a Chrome/kineto trace or a .sstrace, any of them
 * gzip'd, sniffing the format from the content. Rejects only with ImportError.
 */
export async function importTrace(
  source: ImportSource,
  options: ImportOptions,
): Promise<ImportResult> {
  const file = options.fileName;
  const read: ReadSoFar = { bytes: 0, ofBytes: totalBytesOf(source) ?? options.totalBytes };
  try {
    return await importOrThrow(source, options, read);
  } catch (error) {
    if (error instanceof ImportError) {
      throw error;
    }
    if (error instanceof OpLimitReached) {
      const share = shareRead(read);
      throw new ImportLimitError(
        { file },
        `the trace has more than ${error.maxOps} ops and ranges together, the limit an import keeps${share === undefined ? '' : whereReached(share, error.maxOps)}`,
        error.maxOps,
        'ops',
        share === undefined ? undefined : Math.ceil(error.maxOps / share),
      );
    }
    if (error instanceof CodecError) {
      throw new ImportError({ file }, `not a valid streamscope trace: ${error.message}`);
    }
    if (error instanceof RangeError) {
      throw new ImportError(
        { file },
        `the trace exceeds a limit of the trace model: ${error.message}`,
      );
    }
    throw new ImportError(
      { file },
      `import failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** How far an import has read its source (the bytes as they come, compressed or not). */
interface ReadSoFar {
  bytes: number;
  readonly ofBytes: number | undefined;
}

/** The share of its source an import had read, when the source's size is known and it stopped short. */
function shareRead(read: ReadSoFar): number | undefined {
  if (read.ofBytes === undefined || read.bytes <= 0 || read.bytes >= read.ofBytes) {
    return undefined;
  }
  return read.bytes / read.ofBytes;
}

/**
 * Where a streamed import stopped at its op limit, and the ops the whole file would keep at that
 * rate: what `--max-ops` would have to be (a projection, so said as "about").
 */
function whereReached(share: number, maxOps: number): string {
  return ` (reached ${Math.max(1, Math.floor(share * 100))}% into the file: about ${aboutCount(maxOps / share)} in all)`;
}

/** 348M, 1.2M, 860k, 412: two or three significant digits. */
function aboutCount(n: number): string {
  if (n >= 1e8) {
    return `${Math.round(n / 1e6)}M`;
  }
  if (n >= 1e6) {
    return `${Number((n / 1e6).toPrecision(2))}M`;
  }
  if (n >= 1e3) {
    return `${Number((n / 1e3).toPrecision(2))}k`;
  }
  return String(Math.round(n));
}

async function importOrThrow(
  source: ImportSource,
  options: ImportOptions,
  read: ReadSoFar,
): Promise<ImportResult> {
  const file = options.fileName;
  const maxBytes = options.maxBytes ?? defaultMaxImportBytes;
  throwIfAborted(options.signal, file);
  const totalBytes = read.ofBytes;
  const input = metered(chunksOf(source), {
    file,
    maxBytes,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onProgress: (bytesRead, ofBytes) => {
      read.bytes = bytesRead;
      options.onProgress?.(bytesRead, ofBytes);
    },
    ...(totalBytes === undefined ? {} : { totalBytes }),
  });
  let peeked = await peekHead(input, sniffHeadBytes);
  let sniffed = sniffOrThrow(peeked.head, file);
  let gzipCutAt: number | undefined;
  if (sniffed.gzip) {
    const inflated = gunzip(peeked.chunks, file, maxBytes, (compressedBytes) => {
      gzipCutAt = compressedBytes;
    });
    peeked = await peekHead(inflated, sniffHeadBytes);
    sniffed = sniffOrThrow(peeked.head, file.replace(/\.gz$/i, ''));
    if (sniffed.gzip) {
      throw new ImportError(
        { file },
        'gzip inside gzip is not read: decompress the file once first',
      );
    }
  }
  const chunks = peeked.chunks;
  const format = sniffed.format;
  if (format === 'streamscope-trace') {
    const trace = loadTrace(await readAll(chunks));
    return { trace, warnings: [...(trace.meta.warnings ?? [])] };
  }
  const builder = new TraceBuilder({
    title: baseName(file),
    sourceFormat: format,
    timingMethod: 'imported',
    producer: '',
  });
  if (options.maxOps !== undefined) {
    builder.maxOps = options.maxOps;
  }
  const launches = builder.launchTable();
  let producer: string;
  let createdAt: string | undefined;
  if (format === 'nsys-json' && totalBytes !== undefined && !sniffed.gzip) {
    // nsys JSON lines average a few hundred bytes: one op per ~300 bytes, capped.
    builder.reserve(Math.min(totalBytes / 300, 1 << 22));
  }
  if (format === 'nsys-json') {
    const lines = await readNsysJson(
      chunks,
      file,
      builder,
      launches,
      options.signal,
      options.nsysJsonReader,
      sniffed.gzip ? undefined : totalBytes,
    );
    producer = lines.producer;
  } else if (format === 'nsys-sqlite' && isRandomAccessFile(source) && !sniffed.gzip) {
    // Read from the file page by page: memory holds a bounded cache, never the database.
    ({ producer, createdAt } = await readSqlite(openSqliteFile(source, file), builder, options));
  } else if (format === 'nsys-sqlite') {
    // In memory through sql.js (the browser, or bytes and streams): the database is held once: read into one array when the size is known, then handed over.
    const bytes = await readAll(chunks, sniffed.gzip ? undefined : totalBytes);
    throwIfAborted(options.signal, file);
    const SQL = await loadSqlJs(options.sqlWasm);
    let db;
    try {
      db = openOwnedDatabase(SQL, bytes);
    } catch (error) {
      throw new ImportError(
        { file },
        `not a readable SQLite database (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    try {
      ({ producer, createdAt } = await readSqlite(new SqlJsSource(db), builder, options));
    } finally {
      db.close();
    }
  } else {
    producer = await readChromeTrace(
      chunks,
      file,
      builder,
      launches,
      options.signal,
      sniffed.gzip ? undefined : totalBytes,
    );
  }
  throwIfAborted(options.signal, file);
  if (gzipCutAt !== undefined) {
    builder.warnings.add(
      `the gzip data ends early, at compressed byte ${gzipCutAt} (the file was cut short): what it held was read`,
    );
  }
  if (builder.opCount === 0 && builder.rangeCount === 0) {
    // An import that keeps nothing is a failure, never an empty success.
    const why = builder.warnings.list().slice(0, 3).join('; ');
    throw new ImportError(
      { file },
      `nothing to import: no GPU operation, API call or range in this ${formatLabel(format)}${why === '' ? '' : ` (${why})`}`,
    );
  }
  const trace = builder.build({ producer, ...(createdAt === undefined ? {} : { createdAt }) });
  return { trace, warnings: [...(trace.meta.warnings ?? [])] };
}

function openSqliteFile(source: RandomAccessFile, file: string): FileSqliteSource {
  try {
    return new FileSqliteSource(source);
  } catch (error) {
    if (error instanceof SqliteFormatError) {
      throw new ImportError({ file }, `not a readable SQLite database (${error.message})`);
    }
    throw error;
  }
}

/** The nsys SQLite importer over either engine; a cancel lands between tables. */
async function readSqlite(
  source: SqliteSource,
  builder: TraceBuilder,
  options: ImportOptions,
): Promise<{ producer: string; createdAt?: string }> {
  const file = options.fileName;
  const launches = builder.launchTable();
  try {
    const between = async (stage: string): Promise<void> => {
      // A turn of the event loop lets a cancel (a worker message, a closed upload) arrive.
      await new Promise((resolve) => setTimeout(resolve, 0));
      throwIfAborted(options.signal, file);
      if (source.bytesRead !== undefined) {
        options.onProgress?.(source.bytesRead);
      }
      options.onStage?.(stage);
    };
    const read = await new NsysSqliteReader(source, file, builder, launches).read(between);
    // Before the trace is built: the cache is no part of the peak that building makes.
    source.release?.();
    return read;
  } catch (error) {
    if (error instanceof ImportError || error instanceof RangeError) {
      throw error; // OpLimitReached is a RangeError
    }
    // sql.js reports a damaged or truncated file only when a page is read
    throw new ImportError(
      { file },
      `the SQLite database is damaged or truncated (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

function formatLabel(format: ImportFormat): string {
  return format === 'chrome-trace'
    ? 'Chrome trace'
    : format === 'nsys-json'
      ? 'nsys JSON export'
      : 'nsys SQLite export';
}

function baseName(file: string): string {
  return file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
}
