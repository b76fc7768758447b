import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { checkResponse } from './openapi-check.ts';

/** How a test or a benchmark sends a file to PUT /api/imports. */
export interface UploadOptions {
  /** The uploadId query parameter (progress and cancel refer to it). */
  readonly uploadId?: string;
  /** Sent as the Content-Type; none by default (fetch then sends none for bytes). */
  readonly contentType?: string;
  /** More request headers (Content-Encoding, Content-Length, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Check the answer against openapi.yaml (true by default). */
  readonly check?: boolean;
  /** The query string as it is sent, instead of one made from fileName and uploadId. */
  readonly rawQuery?: string;
}

/** The body of an API error. */
export interface ErrorBody {
  readonly error?: { readonly code: string; readonly message: string; readonly path?: string };
}

/** The server's answer: its status and JSON body. */
export interface UploadReply<Body = unknown> {
  readonly status: number;
  readonly body: Body;
}

/**
 * PUTs `body` to `base`/api/imports as `fileName` and reads the JSON answer, checked against
 * openapi.yaml. A path on disk (`{file}`) is streamed with its Content-Length, as a browser or
 * curl sends a file.
 */
export async function upload<Body = unknown>(
  base: string,
  body: Uint8Array | string | { readonly file: string },
  fileName: string,
  options: UploadOptions = {},
): Promise<UploadReply<Body>> {
  const query = new URLSearchParams({ filename: fileName });
  if (options.uploadId !== undefined) {
    query.set('uploadId', options.uploadId);
  }
  const search = options.rawQuery ?? query.toString();
  const headers: Record<string, string> = { ...options.headers };
  if (options.contentType !== undefined) {
    headers['content-type'] = options.contentType;
  }
  let sent: RequestInit['body'];
  if (typeof body === 'object' && 'file' in body) {
    headers['content-length'] ??= String((await stat(body.file)).size);
    sent = Readable.toWeb(createReadStream(body.file)) as ReadableStream<Uint8Array>;
  } else {
    sent = body;
  }
  const response = await fetch(`${base}/api/imports?${search}`, {
    method: 'PUT',
    headers,
    body: sent,
    duplex: 'half',
  });
  const text = await response.text();
  const parsed = (text === '' ? undefined : JSON.parse(text)) as Body;
  if (options.check ?? true) {
    checkResponse('PUT', '/api/imports', response.status, parsed);
  }
  return { status: response.status, body: parsed };
}
