import { beginActivity } from '../test-mode/activity.ts';
import { ApiError } from './client.ts';
import { isObject } from './guards.ts';
import type { TraceEntry } from './types.ts';
import { parseApiError, parseTraceEntry } from './types.ts';

export interface UploadHandle {
  readonly done: Promise<TraceEntry>;
  abort: () => void;
}

/**
 * PUT /api/imports with the raw file as the body. XHR rather than fetch because only XHR reports
 * upload progress. `onProgress` gets a fraction in [0, 1] of bytes sent.
 */
export function uploadTrace(
  file: Blob,
  fileName: string,
  onProgress: (fraction: number) => void,
): UploadHandle {
  const xhr = new XMLHttpRequest();
  const end = beginActivity();
  const done = new Promise<TraceEntry>((resolve, reject) => {
    xhr.open('PUT', `/api/imports?filename=${encodeURIComponent(fileName)}`);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) {
        onProgress(event.loaded / event.total);
      }
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText) as unknown;
      } catch {
        // Not JSON: reported below from the status.
      }
      const apiError = parseApiError(body);
      if (xhr.status >= 200 && xhr.status < 300 && apiError === null && isObject(body)) {
        onProgress(1);
        resolve(parseTraceEntry(body));
        return;
      }
      reject(
        new ApiError(
          apiError?.message ?? `upload failed: ${xhr.status} ${xhr.statusText}`,
          xhr.status,
          apiError?.code ?? 'http',
          apiError?.path,
        ),
      );
    };
    xhr.onerror = () => reject(new ApiError('the upload did not reach the server', 0, 'network'));
    xhr.onabort = () => reject(new ApiError('upload cancelled', 0, 'aborted'));
    xhr.send(file);
  }).finally(end);
  return { done, abort: () => xhr.abort() };
}
