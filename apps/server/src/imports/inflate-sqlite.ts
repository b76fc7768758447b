import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzip, sniffFormat } from '@streamscope/importers';

export interface InflateOptions {
  readonly fileName: string;
  /** Most bytes the content may inflate to. */
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  /** Compressed bytes read so far. */
  readonly onProgress: (compressedBytes: number) => void;
}

// 'SQLite format 3\0': what the inflated content must start with to be spooled.
const sqliteMagicBytes = 16;

/**
 * A gzip'd upload whose content is a SQLite export is inflated to `targetPath` (a file beside
 * the upload), so the importer reads it from disk at its known size and holds it once, instead
 * of inflating it in memory (chunks, then their concatenation, then sql.js's copy). The inflated
 * size is capped by `maxBytes` and by the importers' compression-ratio rule, and the inflating
 * follows the disk, so memory stays at a few chunks. Returns false, writing nothing, when the
 * upload is not gzip or its content is not SQLite (those are read as a stream anyway). The
 * caller removes `targetPath` whatever happens.
 */
export async function inflateSqliteUpload(
  partPath: string,
  targetPath: string,
  options: InflateOptions,
): Promise<boolean> {
  if (!(await isGzip(partPath))) {
    return false;
  }
  let compressedBytes = 0;
  async function* compressed(): AsyncGenerator<Uint8Array> {
    for await (const chunk of createReadStream(partPath, { signal: options.signal })) {
      compressedBytes += (chunk as Buffer).length;
      options.onProgress(compressedBytes);
      yield chunk as Buffer;
    }
  }
  const inflated = gunzip(compressed(), options.fileName, options.maxBytes);
  const head: Uint8Array[] = [];
  let headBytes = 0;
  while (headBytes < sqliteMagicBytes) {
    const next = await inflated.next();
    if (next.done === true) {
      break;
    }
    head.push(next.value);
    headBytes += next.value.length;
  }
  const headView = Buffer.concat(head);
  const sniffed = sniffFormat(headView, options.fileName.replace(/\.gz$/i, ''));
  if (!sniffed.ok || sniffed.gzip || sniffed.format !== 'nsys-sqlite') {
    await inflated.return(undefined);
    return false;
  }
  async function* all(): AsyncGenerator<Uint8Array> {
    yield* head.splice(0);
    yield* inflated;
  }
  await pipeline(
    Readable.from(all()),
    createWriteStream(targetPath, { flags: 'wx', mode: 0o600 }),
    { signal: options.signal },
  );
  return true;
}

async function isGzip(filePath: string): Promise<boolean> {
  const head = await headOf(filePath, 2);
  return head.length === 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Whether the file is a SQLite database (by its first 16 bytes). */
export async function isSqlite(filePath: string): Promise<boolean> {
  const head = await headOf(filePath, sqliteMagicBytes);
  const sniffed = sniffFormat(head);
  return sniffed.ok && sniffed.format === 'nsys-sqlite' && !sniffed.gzip;
}

async function headOf(filePath: string, bytes: number): Promise<Buffer> {
  const handle = await open(filePath, 'r');
  try {
    const head = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(head, 0, bytes, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

let sqliteTurn: Promise<void> = Promise.resolve();

/**
 * Runs `work` (reading a SQLite export, held whole in memory meanwhile) when no other such work
 * runs: two big exports uploaded at once are read one after the other, not both in memory. A
 * cancel while waiting stops the wait; the turn still passes on in order.
 */
export async function oneSqliteAtATime<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  const previous = sqliteTurn;
  let release = (): void => undefined;
  sqliteTurn = new Promise((resolve) => {
    release = resolve;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void =>
        reject(signal.reason instanceof Error ? signal.reason : new Error('import cancelled'));
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      void previous.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
    return await work();
  } finally {
    // The next in line goes only once everyone before this one is done.
    void previous.then(release);
  }
}
