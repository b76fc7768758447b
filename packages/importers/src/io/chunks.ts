import { ImportError } from '../import-error.ts';
import type { RandomAccessFile } from '../sqlite-reader/random-access.ts';
import { isRandomAccessFile } from '../sqlite-reader/random-access.ts';
import { ImportLimitError } from './limit-error.ts';

/**
 * What an import reads: a stream of chunks (a fetch body, a file stream), a Blob, bytes, or a
 * file read at any position (Node: a SQLite export is then read from disk page by page). A
 * stream may hand out each chunk in a buffer it fills again once the next chunk is asked for
 * (the server's file reader does): an import copies whatever it keeps of a chunk past that.
 */
export type ImportSource = AsyncIterable<Uint8Array> | Blob | Uint8Array | RandomAccessFile;

const sliceBytes = 1 << 20;

/** The source as chunks of at most a few MiB each. */
export async function* chunksOf(source: ImportSource): AsyncGenerator<Uint8Array> {
  if (isRandomAccessFile(source)) {
    for (let at = 0; at < source.sizeBytes;) {
      const chunk = new Uint8Array(Math.min(sliceBytes, source.sizeBytes - at));
      const n = source.readAt(chunk, at);
      if (n <= 0) {
        return; // the file shrank: what was read is what there is
      }
      at += n;
      yield n === chunk.length ? chunk : chunk.subarray(0, n);
    }
    return;
  }
  if (source instanceof Uint8Array) {
    for (let at = 0; at < source.length; at += sliceBytes) {
      yield source.subarray(at, Math.min(source.length, at + sliceBytes));
    }
    return;
  }
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    const reader = (source.stream() as ReadableStream<Uint8Array>).getReader();
    let done = false;
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) {
          done = true;
          return;
        }
        yield next.value;
      }
    } finally {
      // A consumer that stopped early (an error, a cancel) closes the Blob's reading too.
      if (!done) {
        await reader.cancel().catch(() => undefined);
      }
      reader.releaseLock();
    }
  }
  yield* source as AsyncIterable<Uint8Array>;
}

export function totalBytesOf(source: ImportSource): number | undefined {
  if (isRandomAccessFile(source)) {
    return source.sizeBytes;
  }
  if (source instanceof Uint8Array) {
    return source.length;
  }
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    return source.size;
  }
  return undefined;
}

export interface MeterOptions {
  readonly file: string;
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (bytesRead: number, totalBytes?: number) => void;
  readonly totalBytes?: number;
}

/** Counts bytes for progress, stops past `maxBytes`, and honours the abort signal between chunks. */
export async function* metered(
  chunks: AsyncIterable<Uint8Array>,
  options: MeterOptions,
): AsyncGenerator<Uint8Array> {
  let read = 0;
  for await (const chunk of chunks) {
    throwIfAborted(options.signal, options.file);
    read += chunk.length;
    if (read > options.maxBytes) {
      throw new ImportLimitError(
        { file: options.file },
        `the file is larger than the ${options.maxBytes}-byte limit for imports`,
        options.maxBytes,
      );
    }
    options.onProgress?.(read, options.totalBytes);
    // A plain Uint8Array view (not a Node Buffer subclass) keeps the byte loops monomorphic.
    yield chunk.constructor === Uint8Array
      ? chunk
      : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
  }
}

export function throwIfAborted(signal: AbortSignal | undefined, file: string): void {
  if (signal?.aborted === true) {
    throw new ImportError({ file }, 'import cancelled');
  }
}

/** The first `n` bytes (fewer at the end of the input) and every chunk again, head included. */
export async function peekHead(
  chunks: AsyncIterable<Uint8Array>,
  n: number,
): Promise<{ head: Uint8Array; chunks: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let have = 0;
  let ended = false;
  while (have < n) {
    const next = await iterator.next();
    if (next.done === true) {
      ended = true;
      break;
    }
    seen.push(next.value.slice()); // handed out again after the chunks that follow are read
    have += next.value.length;
  }
  const head = concat(seen, Math.min(n, have));
  async function* again(): AsyncGenerator<Uint8Array> {
    yield* seen;
    if (!ended) {
      for (;;) {
        const next = await iterator.next();
        if (next.done === true) {
          return;
        }
        yield next.value;
      }
    }
  }
  return { head, chunks: again() };
}

/**
 * All chunks as one array (SQLite needs the whole database). With `expectedBytes` (the source's
 * size, when known) the array is allocated once and each chunk is copied in and let go, so the
 * input is held once, never as chunks plus their concatenation.
 */
export async function readAll(
  chunks: AsyncIterable<Uint8Array>,
  expectedBytes?: number,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  const whole = expectedBytes === undefined ? undefined : new Uint8Array(expectedBytes);
  for await (const chunk of chunks) {
    const fits =
      whole === undefined ? 0 : Math.max(0, Math.min(chunk.length, whole.length - total));
    if (fits > 0) {
      whole!.set(fits === chunk.length ? chunk : chunk.subarray(0, fits), total);
    }
    if (fits < chunk.length) {
      // No size known, or more bytes than it said: keep the rest and join at the end.
      parts.push(chunk.slice(fits)); // a copy: the source may fill its buffer again
    }
    total += chunk.length;
  }
  if (whole === undefined) {
    return concat(parts, total);
  }
  if (parts.length > 0) {
    return concat([whole, ...parts], total);
  }
  return total === whole.length ? whole : whole.subarray(0, total);
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1 && parts[0]!.length === length) {
    return parts[0]!;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    if (at >= length) {
      break;
    }
    const take = Math.min(part.length, length - at);
    out.set(take === part.length ? part : part.subarray(0, take), at);
    at += take;
  }
  return out;
}
