import { ImportError } from '../import-error.ts';
import { ImportLimitError } from './limit-error.ts';

/**
 * Inflated bytes above this many times the compressed bytes read so far (and above 64 MiB) are
 * a bomb: real traces compress 10–30×, and deflate cannot exceed about 1030×.
 */
export const maxInflateRatio = 300;
const ratioFloorBytes = 64 << 20;

/**
 * Inflates gzip chunks with the platform's DecompressionStream (browser, Worker, Node), stopping
 * at `maxBytes` of output or at a compression ratio no real trace has: a gzip bomb is an error,
 * not an out-of-memory crash. A stream cut short (a file copied in part: the input ends before
 * the gzip stream does) ends the output where the input did and tells `onCutShort` the
 * compressed bytes read, so that the importer recovers what they held as it does for a plain
 * file cut short; without `onCutShort`, or for any other damage, it is an error.
 */
export async function* gunzip(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  maxBytes: number,
  onCutShort?: (compressedBytes: number) => void,
): AsyncGenerator<Uint8Array> {
  const stream = new DecompressionStream('gzip');
  const writer = stream.writable.getWriter();
  const reader = (stream.readable as ReadableStream<Uint8Array>).getReader();
  let inBytes = 0;
  let outBytes = 0;
  let inputError: Error | undefined;
  const pump = (async (): Promise<void> => {
    try {
      for await (const chunk of chunks) {
        inBytes += chunk.length;
        // A copy: the stream may hold a written chunk past the write's promise (it settles at
        // once below the stream's high-water mark), and the source may fill the chunk's buffer
        // again once the next one is asked for. The copy is also a plain ArrayBuffer's view,
        // which DecompressionStream takes (a shared buffer's is not).
        const written = await writer.write(new Uint8Array(chunk)).then(
          () => true,
          () => false,
        );
        if (!written) {
          // Inflating failed: the reader says why; the rest of the input is not read.
          return;
        }
      }
    } catch (error) {
      // The input's own failure (a read error, a limit, a cancel), not the inflating's.
      inputError = error instanceof Error ? error : new Error(String(error));
      await writer.abort(error).catch(() => undefined);
      return;
    }
    // What inflating the data found wrong (corrupt, cut short) the reader is told.
    await writer.close().catch(() => undefined);
  })();
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        if (inputError !== undefined) {
          throw inputError;
        }
        if (onCutShort !== undefined && isCutShort(error)) {
          onCutShort(inBytes);
          break;
        }
        throw new ImportError(
          { file },
          `the gzip data is corrupt or truncated near compressed byte ${inBytes} (${describe(error)})`,
        );
      }
      if (next.done) {
        break;
      }
      outBytes += next.value.length;
      if (outBytes > maxBytes) {
        throw new ImportLimitError(
          { file },
          `the gzip content inflates past the ${maxBytes}-byte limit for imports`,
          maxBytes,
        );
      }
      if (outBytes > ratioFloorBytes && outBytes > inBytes * maxInflateRatio) {
        throw new ImportError(
          { file },
          `the gzip content inflates more than ${maxInflateRatio}× (${outBytes} bytes from ${inBytes}): refusing a compression bomb`,
        );
      }
      yield next.value;
    }
    await pump;
    if (inputError !== undefined) {
      throw inputError;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
    await pump.catch(() => undefined);
  }
}

/** zlib's "unexpected end of file" (Node's DecompressionStream): the input ended early. */
function isCutShort(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return e?.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(describe(error));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
