import { trackPromise } from '../test-mode/activity.ts';
import { isObject } from './guards.ts';
import type { BackendInfo, Preset, TraceAnalysis, TraceEntry, ValidationError } from './types.ts';
import {
  parseAnalysis,
  parseApiError,
  parseBackend,
  parsePreset,
  parseTraceEntry,
  parseValidationErrors,
} from './types.ts';
import { objects } from './guards.ts';
import type { UploadedEntry } from './upload.ts';

/** An API call that failed; `message` is the server's explanation when it gave one. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly path?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function errorFrom(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: fall back to the status line.
  }
  const parsed = parseApiError(body);
  const message = parsed?.message ?? `${response.status} ${response.statusText}`;
  return new ApiError(message, response.status, parsed?.code ?? 'http', parsed?.path);
}

async function request(path: string, init?: RequestInit): Promise<Response> {
  const response = await trackPromise(fetch(path, init));
  if (!response.ok) {
    throw await errorFrom(response);
  }
  return response;
}

async function getJson(path: string, init?: RequestInit): Promise<unknown> {
  const response = await request(path, init);
  return trackPromise(response.json() as Promise<unknown>);
}

function listOf(value: unknown, key: string): unknown[] {
  if (Array.isArray(value)) {
    return value as unknown[];
  }
  if (isObject(value) && Array.isArray(value[key])) {
    return value[key] as unknown[];
  }
  return [];
}

export async function listTraces(): Promise<TraceEntry[]> {
  return objects(listOf(await getJson('/api/traces'), 'traces')).map(parseTraceEntry);
}

export async function getTraceEntry(id: string): Promise<TraceEntry> {
  const value = await getJson(`/api/traces/${encodeURIComponent(id)}`);
  if (!isObject(value)) {
    throw new ApiError('trace entry is not an object', 500, 'shape');
  }
  return parseTraceEntry(value);
}

export async function getTraceBytes(id: string, signal?: AbortSignal): Promise<Uint8Array> {
  const response = await request(`/api/traces/${encodeURIComponent(id)}/data`, { signal });
  return new Uint8Array(await trackPromise(response.arrayBuffer()));
}

export async function getAnalysis(id: string): Promise<TraceAnalysis> {
  return parseAnalysis(await getJson(`/api/traces/${encodeURIComponent(id)}/analysis`));
}

export async function deleteTrace(id: string): Promise<void> {
  await request(`/api/traces/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

export async function listPresets(): Promise<Preset[]> {
  return objects(listOf(await getJson('/api/presets'), 'presets')).map(parsePreset);
}

export async function listBackends(): Promise<BackendInfo[]> {
  return objects(listOf(await getJson('/api/backends'), 'backends')).map(parseBackend);
}

export async function validateWorkload(workload: unknown): Promise<ValidationError[]> {
  const response = await trackPromise(
    fetch('/api/workloads/validate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(workload),
    }),
  );
  const body: unknown = await trackPromise(response.json() as Promise<unknown>);
  if (isObject(body) && body['ok'] === true) {
    return [];
  }
  const errors = parseValidationErrors(body);
  if (errors.length > 0) {
    return errors;
  }
  const apiError = parseApiError(body);
  return [{ path: apiError?.path ?? '', message: apiError?.message ?? 'invalid workload' }];
}

export interface RunRequest {
  readonly workload?: unknown;
  readonly preset?: string;
  readonly params?: Readonly<Record<string, unknown>>;
  readonly backend?: string;
  readonly target?: string;
  readonly pace?: 'fast' | 'realtime';
  /** With pace realtime: GPU time played this many times slower (1..1000). */
  readonly slowdown?: number;
}

export interface RunTicket {
  readonly id: string;
  readonly status: string;
  readonly position: number | null;
}

export async function startRun(run: RunRequest): Promise<RunTicket> {
  const value = await getJson('/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(run),
  });
  if (!isObject(value) || typeof value['id'] !== 'string') {
    throw new ApiError('the server did not return a run id', 500, 'shape');
  }
  const position = value['position'];
  return {
    id: value['id'],
    status: typeof value['status'] === 'string' ? value['status'] : 'queued',
    position: typeof position === 'number' ? position : null,
  };
}

/**
 * POST /api/imports/merge: stored traces of one job's ranks → one new stored trace, or the
 * earlier merge of the same inputs and title (`alreadyImported`: nothing new was stored).
 */
export async function mergeImports(ids: readonly string[], title?: string): Promise<UploadedEntry> {
  const value = await getJson('/api/imports/merge', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(title === undefined ? { ids } : { ids, title }),
  });
  if (!isObject(value)) {
    throw new ApiError('the merged trace entry is not an object', 500, 'shape');
  }
  return { ...parseTraceEntry(value), alreadyImported: value['alreadyImported'] === true };
}

export async function cancelRun(id: string): Promise<void> {
  await request(`/api/runs/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
}
