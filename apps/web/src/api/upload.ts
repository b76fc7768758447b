import { beginActivity } from '../test-mode/activity.ts';
import { ApiError } from './client.ts';
import { isObject } from './guards.ts';
import type { ImportProgress } from './import-progress.ts';
import { progressFromServer, uploadingProgress } from './import-progress.ts';
import type { TraceEntry } from './types.ts';
import { parseApiError, parseTraceEntry } from './types.ts';

/** An upload's answer: the new entry, or (with `ifDuplicate: 'offer'`) the earlier import. */
export interface UploadedEntry extends TraceEntry {
  /** True when the server had these bytes already and stored nothing new. */
  readonly alreadyImported: boolean;
}

export interface UploadHandle {
  readonly done: Promise<UploadedEntry>;
  /** Stops the import: the upload while it goes up, the server's parse once the file is in. */
  abort: () => void;
}

/** How often the server's parse progress is asked for once the file is up. */
const pollIntervalMs = 100;

/** 24 hex digits (randomUUID needs a secure context, which a LAN address over http is not). */
function newUploadId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * PUT /api/imports with the raw file as the body, then the server's parse progress until it
 * answers. XHR rather than fetch because only XHR reports upload progress. A cancel while the
 * server parses goes to POST /api/imports/{uploadId}/cancel; the PUT then answers
 * `import-cancelled`.
 */
export function uploadTrace(
  file: Blob,
  fileName: string,
  onProgress: (progress: ImportProgress) => void,
  ifDuplicate: 'import' | 'offer' = 'import',
): UploadHandle {
  const xhr = new XMLHttpRequest();
  const uploadId = newUploadId();
  const end = beginActivity();
  let uploaded = false;
  let settled = false;
  let pollTimer: ReturnType<typeof setTimeout> | undefined;

  const poll = async (): Promise<void> => {
    pollTimer = undefined;
    try {
      const response = await fetch(`/api/imports/${uploadId}/progress`);
      const progress = progressFromServer(response.ok ? await response.json() : null);
      if (!settled && progress !== null) {
        onProgress(progress);
      }
    } catch {
      // A missed poll only delays the bar; the PUT's answer still ends the import.
    }
    if (!settled) {
      pollTimer = setTimeout(() => void poll(), pollIntervalMs);
    }
  };

  const done = new Promise<UploadedEntry>((resolve, reject) => {
    xhr.open(
      'PUT',
      `/api/imports?filename=${encodeURIComponent(fileName)}&uploadId=${encodeURIComponent(uploadId)}&ifDuplicate=${ifDuplicate}`,
    );
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) {
        onProgress(uploadingProgress(event.loaded, event.total));
      }
    };
    xhr.upload.onload = () => {
      uploaded = true;
      void poll();
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
        resolve({ ...parseTraceEntry(body), alreadyImported: body['alreadyImported'] === true });
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
  }).finally(() => {
    settled = true;
    if (pollTimer !== undefined) {
      clearTimeout(pollTimer);
    }
    end();
  });

  const abort = (): void => {
    if (!uploaded) {
      xhr.abort();
      return;
    }
    // The file is up: ask the server to stop parsing. Should that fail, dropping the
    // connection cancels the import as well.
    fetch(`/api/imports/${uploadId}/cancel`, { method: 'POST' }).then(
      (response) => {
        if (!response.ok) {
          xhr.abort();
        }
      },
      () => xhr.abort(),
    );
  };
  return { done, abort };
}
