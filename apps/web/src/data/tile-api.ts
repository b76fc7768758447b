import type { TileSet, Trace } from '@streamscope/trace';
import { decodeTiles, loadTrace } from '@streamscope/trace';
import { isObject } from '../api/guards.ts';
import { parseApiError } from '../api/types.ts';
import { trackPromise } from '../test-mode/activity.ts';
import type { TileFetcher, TileMeta } from '@streamscope/timeline';

/** One op of a stored trace as the server reads it (search matches, details by index). */
export interface ServerOp {
  readonly op: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly track: number;
  readonly kind: string;
  readonly name: string;
}

export interface ServerSearch {
  readonly count: number;
  readonly matches: readonly ServerOp[];
}

/** The API path of one stored trace. */
export const base = (id: string): string => `/api/traces/${encodeURIComponent(id)}`;

async function get(path: string, signal?: AbortSignal): Promise<Response> {
  const response = await trackPromise(fetch(path, signal === undefined ? {} : { signal }));
  if (!response.ok) {
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      // Not JSON: the status line says it.
    }
    const parsed = parseApiError(body);
    throw new Error(parsed?.message ?? `${response.status} ${response.statusText}`);
  }
  return response;
}

/** GET `path` as JSON; a non-2xx answer throws with the server's message. */
export async function getJson(path: string): Promise<unknown> {
  const response = await get(path);
  return trackPromise(response.json() as Promise<unknown>);
}

/** `value[key]` as a finite number, or a precise error naming the key. */
export function num(value: Record<string, unknown>, key: string): number {
  const v = value[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new Error(`the server's answer lacks a number '${key}'`);
  }
  return v;
}

export function serverOp(value: unknown): ServerOp {
  if (!isObject(value)) {
    throw new Error("the server's op is not an object");
  }
  return {
    op: num(value, 'op'),
    startNs: num(value, 'startNs'),
    endNs: num(value, 'endNs'),
    track: num(value, 'track'),
    kind: String(value['kind']),
    name: String(value['name']),
  };
}

export async function getTileMeta(id: string): Promise<TileMeta> {
  const value = await getJson(`${base(id)}/tiles/meta`);
  if (!isObject(value)) {
    throw new Error('the tiles meta is not an object');
  }
  return {
    opCount: num(value, 'opCount'),
    spanNs: num(value, 'spanNs'),
    trackCount: num(value, 'trackCount'),
    levelCount: num(value, 'levelCount'),
    fanout: num(value, 'fanout'),
    level0BucketNs: num(value, 'level0BucketNs'),
  };
}

/** The trace with only its ops at time 0 (every track and string), kept beside its tiles. */
export async function getTileSkeleton(id: string): Promise<Trace> {
  const response = await get(`${base(id)}/tiles/skeleton`);
  return loadTrace(new Uint8Array(await trackPromise(response.arrayBuffer())));
}

/** The exact ops of [fromNs, toNs] with every track and string (GET /data with a window). */
export async function getTraceWindow(
  id: string,
  fromNs: number,
  toNs: number,
  signal?: AbortSignal,
): Promise<Trace> {
  const response = await get(`${base(id)}/data?fromNs=${fromNs}&toNs=${toNs}`, signal);
  return loadTrace(new Uint8Array(await trackPromise(response.arrayBuffer())));
}

export async function searchServer(
  id: string,
  query: string,
  fromNs: number | undefined,
  direction: 'next' | 'previous',
  limit: number,
  regex = false,
): Promise<ServerSearch> {
  const params = new URLSearchParams({ q: query, direction, limit: String(limit) });
  if (regex) {
    params.set('regex', '1');
  }
  if (fromNs !== undefined) {
    params.set('fromNs', String(fromNs));
  }
  const value = await getJson(`${base(id)}/search?${params.toString()}`);
  if (!isObject(value) || !Array.isArray(value['matches'])) {
    throw new Error('the search answer lacks its matches');
  }
  return { count: num(value, 'count'), matches: (value['matches'] as unknown[]).map(serverOp) };
}

/** The app's fetcher for one stored trace. */
export function tileFetcher(id: string): TileFetcher {
  return {
    async tiles(t0Ns, t1Ns, px, signal): Promise<TileSet> {
      const response = await get(`${base(id)}/tiles?t0Ns=${t0Ns}&t1Ns=${t1Ns}&px=${px}`, signal);
      return decodeTiles(await trackPromise(response.arrayBuffer()));
    },
    window: (fromNs, toNs, signal) => getTraceWindow(id, fromNs, toNs, signal),
  };
}
