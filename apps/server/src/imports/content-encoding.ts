import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ApiError } from '../http/api-error.ts';

/** A Content-Encoding an upload may arrive in (`x-gzip` is read as gzip, RFC 9110 §8.4.1.3). */
export type ContentCoding = 'gzip' | 'deflate' | 'br';

/**
 * The codings of a Content-Encoding header in the order they were applied (`identity` and empty
 * entries dropped). Any other coding is refused before a byte of the body is read: 415.
 */
export function parseContentEncoding(header: string | undefined): ContentCoding[] {
  const codings: ContentCoding[] = [];
  for (const raw of (header ?? '').split(',')) {
    const coding = raw.trim().toLowerCase();
    if (coding === '' || coding === 'identity') {
      continue;
    }
    if (coding === 'gzip' || coding === 'x-gzip') {
      codings.push('gzip');
    } else if (coding === 'deflate' || coding === 'br') {
      codings.push(coding);
    } else {
      throw new ApiError(
        415,
        'unsupported-content-encoding',
        `Content-Encoding '${raw.trim()}' is not supported: send the file as it is, or encoded with gzip, deflate or br`,
        'Content-Encoding',
      );
    }
  }
  return codings;
}

/** Where a body's decoding went wrong: the coding and zlib's own error. */
export interface DecodeFailure {
  readonly coding: ContentCoding;
  readonly error: Error;
}

/** Decoders that undo `codings`: the last one applied is undone first. */
export function decodersFor(
  codings: readonly ContentCoding[],
): { coding: ContentCoding; decoder: Transform }[] {
  return [...codings].reverse().map((coding) => ({
    coding,
    decoder:
      coding === 'gzip'
        ? createGunzip()
        : coding === 'deflate'
          ? createInflate()
          : createBrotliDecompress(),
  }));
}

/** 400 for a body that is not what its Content-Encoding says. */
export function badEncoding(failure: DecodeFailure, fileName: string): ApiError {
  return new ApiError(
    400,
    'bad-content-encoding',
    `the body of '${fileName}' is not valid ${failure.coding} data, as its Content-Encoding says (${failure.error.message})`,
    'Content-Encoding',
  );
}
