import type { ImportLimitError } from '@streamscope/importers';
import { importPeakBytesPerOp } from '@streamscope/importers';
import { CodecError } from '@streamscope/trace';
import { memoryText, usableMemoryBytes } from '../config.ts';
import { ApiError } from '../http/api-error.ts';

/** The flag (and start option) that raises the upload limit, named wherever the limit is hit. */
export const uploadLimitHint =
  'start the server with --max-upload-mb N (limits.uploadBytes) to raise it';

/** The flag (and start option) that raises the limit of ops an import keeps. */
export const importOpsHint = 'start the server with --max-ops N (limits.importOps) to raise it';

/**
 * 413 for an import over a limit of its own (bytes inflated, or ops kept), naming what raises it
 * and, where the input's size in ops can be told, to what.
 */
export function importLimitReached(error: ImportLimitError): ApiError {
  const advice = keepAllAdvice(error);
  const hint =
    error.unit !== 'ops'
      ? uploadLimitHint
      : advice === undefined
        ? importOpsHint
        : `start the server with --max-ops ${advice.maxOps} (limits.importOps) or more to keep it all: ${advice.memory}`;
  return new ApiError(413, 'too-large', `${error.message}; ${hint}`);
}

/**
 * What `--max-ops` keeps all of an input over the op limit (its count rounded up to three
 * significant digits), and the memory that takes beside this machine's; undefined where the
 * input's count cannot be told.
 */
export function keepAllAdvice(
  error: ImportLimitError,
): { readonly maxOps: number; readonly memory: string } | undefined {
  if (error.unit !== 'ops' || error.wanted === undefined || !(error.wanted > error.limit)) {
    return undefined;
  }
  const step = 10 ** Math.max(0, Math.floor(Math.log10(error.wanted)) - 2);
  const maxOps = Math.ceil(error.wanted / step) * step;
  const needBytes = maxOps * importPeakBytesPerOp;
  const haveBytes = usableMemoryBytes();
  return {
    maxOps,
    memory: `about ${memoryText(needBytes)} at ${importPeakBytesPerOp} bytes an op, ${needBytes <= haveBytes ? 'of' : 'more than'} the ${memoryText(haveBytes)} this machine has`,
  };
}

/** 413 naming the limit, the flag that raises it and, when declared, the upload's size. */
export function tooLarge(maxBytes: number, declaredBytes?: number): ApiError {
  const declared =
    declaredBytes === undefined ? '' : `this upload declares ${declaredBytes} bytes, but `;
  return new ApiError(
    413,
    'too-large',
    `${declared}uploads are limited to ${maxBytes} bytes (${formatMiB(maxBytes)}); ${uploadLimitHint}`,
  );
}

export function cancelledError(fileName: string, why?: string): ApiError {
  return new ApiError(
    400,
    'import-cancelled',
    `the import of '${fileName}' was cancelled${why === undefined ? '' : `: ${why}`}`,
  );
}

/** ENOSPC (the volume is full) or EDQUOT (the user's quota on it is). */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

export function diskFull(): ApiError {
  return new ApiError(507, 'no-space', 'no space left on the data volume');
}

/**
 * What the uploader is told when an import fails: client mistakes keep their status; a full
 * disk is 507; anything else is 500, and the caller logs it (the message never shows internals).
 */
export function asImportError(error: unknown, fileName: string): ApiError {
  if (error instanceof ApiError) {
    return error;
  }
  if (error instanceof CodecError) {
    return new ApiError(422, 'invalid-trace', `${fileName}: ${error.message}`);
  }
  if (isDiskFull(error)) {
    return diskFull();
  }
  return new ApiError(500, 'import-internal', `${fileName}: the import failed unexpectedly`);
}

export function formatMiB(bytes: number): string {
  return `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;
}
