import { analyzeTrace } from '@streamscope/analysis';
import type { SqlWasmOptions } from '@streamscope/importers';
import { ImportError, importTrace } from '@streamscope/importers';
import { saveTrace } from '@streamscope/trace';
import type { LocalImportResponse } from './local-import-protocol.ts';

export interface LocalImportOptions {
  readonly signal: AbortSignal;
  /** Bytes of the file read so far (compressed bytes for a gzip'd file), of its size. */
  readonly onProgress: (readBytes: number, totalBytes: number, table?: string) => void;
  readonly sqlWasm?: SqlWasmOptions;
}

/**
 * Reads a dropped file the way the server does (the same importers, sniffing the format from
 * the content), then encodes the trace with the trace codec and analyzes it, all where it runs:
 * in the browser this is a worker, and nothing of the file leaves it.
 */
export async function importLocalFile(
  file: Blob,
  fileName: string,
  options: LocalImportOptions,
): Promise<Extract<LocalImportResponse, { type: 'done' | 'failed' }>> {
  try {
    const { trace, warnings } = await importTrace(file, {
      fileName,
      signal: options.signal,
      onProgress: (readBytes, totalBytes) => options.onProgress(readBytes, totalBytes ?? file.size),
      // A SQLite export goes table by table once every byte is read.
      onStage: (table) => options.onProgress(file.size, file.size, table),
      ...(options.sqlWasm === undefined ? {} : { sqlWasm: options.sqlWasm }),
    });
    // The same JSON the server's analysis endpoint answers with.
    const analysis: unknown = JSON.parse(JSON.stringify(analyzeTrace(trace)));
    return { type: 'done', traceBytes: saveTrace(trace), analysis, warnings };
  } catch (error) {
    const cancelled = options.signal.aborted;
    if (error instanceof ImportError) {
      const place =
        error.path ??
        error.field ??
        error.table ??
        (error.line !== undefined ? `line ${error.line}` : undefined);
      return {
        type: 'failed',
        message: error.message,
        cancelled,
        ...(place === undefined ? {} : { place }),
      };
    }
    return {
      type: 'failed',
      message: `${fileName}: ${error instanceof Error ? error.message : String(error)}`,
      cancelled,
    };
  }
}
