import { isObject, num, str } from './guards.ts';

/**
 * Where an import is: the file going up, the server's nsys exporting a report, the server (or
 * a local worker) parsing it, storing.
 */
export type ImportStage = 'uploading' | 'exporting' | 'parsing' | 'storing';

export interface ImportProgress {
  readonly stage: ImportStage;
  /** Of the whole import, in [0, 1]. */
  readonly fraction: number;
  /** Bytes of the file this stage has handled so far, of `totalBytes`. */
  readonly doneBytes: number;
  readonly totalBytes: number;
  /** A SQLite import, all read: the table it is reading now. */
  readonly table?: string;
}

// A server import is two halves of the bar: the upload, then the parse (in bytes of the file
// read). Storing is quick and shows as a full bar with its own label.
const uploadShare = 0.5;

function ratio(done: number, total: number): number {
  return total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
}

/** The upload's part: `sentBytes` of `totalBytes` sent. */
export function uploadingProgress(sentBytes: number, totalBytes: number): ImportProgress {
  return {
    stage: 'uploading',
    fraction: uploadShare * ratio(sentBytes, totalBytes),
    doneBytes: sentBytes,
    totalBytes,
  };
}

/** A parse that reads `parsedBytes` of `totalBytes`; `afterUpload` when an upload came first. */
export function parsingProgress(
  parsedBytes: number,
  totalBytes: number,
  afterUpload: boolean,
  table = '',
): ImportProgress {
  const start = afterUpload ? uploadShare : 0;
  return {
    stage: 'parsing',
    fraction: start + (1 - start) * ratio(parsedBytes, totalBytes),
    doneBytes: parsedBytes,
    totalBytes,
    ...(table === '' ? {} : { table }),
  };
}

/**
 * The bar's state from GET /api/imports/{uploadId}/progress, or null when the body says nothing
 * new: a finished, failed or cancelled import is reported by the upload's own answer.
 */
export function progressFromServer(body: unknown): ImportProgress | null {
  if (!isObject(body)) {
    return null;
  }
  const received = num(body, 'receivedBytes');
  const total = num(body, 'totalBytes', received);
  switch (str(body, 'phase')) {
    case 'receiving':
      return uploadingProgress(received, total);
    case 'exporting':
      // nsys says nothing of how far it is: the bar waits at the upload's end.
      return {
        stage: 'exporting',
        fraction: uploadShare,
        doneBytes: received,
        totalBytes: received,
      };
    case 'parsing':
      // A report's parse reads nsys's SQLite export, not the upload: its bytes are of that.
      return parsingProgress(
        num(body, 'parsedBytes'),
        num(body, 'parseTotalBytes', received),
        true,
        str(body, 'table'),
      );
    case 'storing':
      return { stage: 'storing', fraction: 1, doneBytes: received, totalBytes: received };
    default:
      return null;
  }
}

/** "12.3 MB": file sizes in progress labels (decimal units, as file managers show them). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) {
    return `${bytes} B`;
  }
  const units = ['kB', 'MB', 'GB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
