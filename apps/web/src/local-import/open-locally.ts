import { loadTrace } from '@streamscope/trace';
import type { ImportProgress } from '../api/import-progress.ts';
import { parsingProgress } from '../api/import-progress.ts';
import { parseAnalysis } from '../api/types.ts';
import { registerTrace, setAnalysis } from '../data/trace-registry.ts';
import { beginActivity } from '../test-mode/activity.ts';
import type { LocalImportRequest, LocalImportResponse } from './local-import-protocol.ts';
import { newLocalTraceId } from './local-trace-id.ts';

export type LocalImportOutcome =
  | {
      readonly kind: 'opened';
      readonly traceId: string;
      readonly opCount: number;
      readonly warnings: readonly string[];
    }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'failed'; readonly message: string; readonly place?: string };

export interface LocalImportHandle {
  readonly done: Promise<LocalImportOutcome>;
  /** Asks the worker to stop; `done` then resolves as cancelled once it has. */
  cancel: () => void;
}

/**
 * Imports `file` in a Web Worker of its own (nothing is uploaded) and registers the trace and
 * its analysis under a local id the trace view opens like a stored one.
 */
export function openLocally(
  file: File,
  onProgress: (progress: ImportProgress) => void,
  createWorker: () => Worker = () =>
    new Worker(new URL('./local-import-worker.ts', import.meta.url), { type: 'module' }),
): LocalImportHandle {
  const worker = createWorker();
  const end = beginActivity();
  const done = new Promise<LocalImportOutcome>((resolve) => {
    worker.addEventListener('message', (event: MessageEvent<LocalImportResponse>) => {
      const message = event.data;
      if (message.type === 'progress') {
        onProgress(
          parsingProgress(message.readBytes, message.totalBytes, false, message.table ?? ''),
        );
        return;
      }
      if (message.type === 'failed') {
        resolve(
          message.cancelled
            ? { kind: 'cancelled' }
            : {
                kind: 'failed',
                message: message.message,
                ...(message.place === undefined ? {} : { place: message.place }),
              },
        );
        return;
      }
      try {
        const trace = loadTrace(message.traceBytes);
        const traceId = newLocalTraceId();
        registerTrace(traceId, trace);
        setAnalysis(traceId, parseAnalysis(message.analysis));
        resolve({
          kind: 'opened',
          traceId,
          opCount: trace.ops.count,
          warnings: message.warnings,
        });
      } catch (error) {
        resolve({
          kind: 'failed',
          message: `the worker's trace could not be read: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
    });
    worker.addEventListener('error', (event) => {
      resolve({ kind: 'failed', message: `the import worker failed: ${event.message}` });
    });
  }).finally(() => {
    worker.terminate();
    end();
  });
  const request: LocalImportRequest = { type: 'import', file, fileName: file.name };
  worker.postMessage(request);
  return {
    done,
    cancel: () => {
      const cancel: LocalImportRequest = { type: 'cancel' };
      worker.postMessage(cancel);
    },
  };
}
