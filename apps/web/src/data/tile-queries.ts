import type { RangeLaneSummary } from '@streamscope/trace';
import { isObject } from '../api/guards.ts';
import type { AreaStatRow } from '../lib/area-stats.ts';
import type { ServerOp } from './tile-api.ts';
import { base, getJson, num, serverOp } from './tile-api.ts';

// What tiled mode asks the server about the whole of a big stored trace (the page holds only a
// window of it): an area's aggregates, one op's flows, where a search's matches are.

/** Per track of an area answer: its ops in the range and the time they kept it busy. */
export interface AreaTrackStat {
  readonly track: number;
  readonly count: number;
  readonly busyNs: number;
}

export interface ServerArea {
  readonly count: number;
  readonly tracks: readonly AreaTrackStat[];
  /** By (kind, name), largest total first; at most 200 of `groupCount`. */
  readonly groups: readonly AreaStatRow[];
  readonly groupCount: number;
}

/** One end of a flow as the server gives it (enough to find it in a window, or add it). */
export interface ServerFlowOp {
  readonly track: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly kind: number;
  readonly nameId: number;
  readonly correlationId: number;
}

export interface ServerFlow {
  readonly kind: number;
  readonly from: ServerFlowOp;
  readonly to: ServerFlowOp;
}

export interface ServerSearchMarks {
  readonly count: number;
  readonly bucketNs: number;
  readonly tracks: readonly {
    readonly track: number;
    readonly buckets: readonly number[];
    readonly counts: readonly number[];
  }[];
}

function objectsAt(value: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const list = value[key];
  if (!Array.isArray(list) || !list.every(isObject)) {
    throw new Error(`the server's answer lacks a list of objects '${key}'`);
  }
  return list;
}

function numbersAt(value: Record<string, unknown>, key: string): number[] {
  const list = value[key];
  if (!Array.isArray(list) || !list.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    throw new Error(`the server's answer lacks a list of numbers '${key}'`);
  }
  return list as number[];
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (!isObject(value)) {
    throw new Error(`the server's ${what} is not an object`);
  }
  return value;
}

/** Aggregates of the ops overlapping [fromNs, toNs] on `tracks` (all when empty), exact. */
export async function getServerArea(
  id: string,
  fromNs: number,
  toNs: number,
  tracks: readonly number[],
): Promise<ServerArea> {
  const params = new URLSearchParams({ fromNs: String(fromNs), toNs: String(toNs) });
  if (tracks.length > 0) {
    params.set('tracks', tracks.join(','));
  }
  const value = asObject(await getJson(`${base(id)}/area?${params.toString()}`), 'area answer');
  return {
    count: num(value, 'count'),
    groupCount: num(value, 'groupCount'),
    tracks: objectsAt(value, 'tracks').map((t) => ({
      track: num(t, 'track'),
      count: num(t, 'count'),
      busyNs: num(t, 'busyNs'),
    })),
    groups: objectsAt(value, 'groups').map((g) => ({
      kind: String(g['kind']),
      name: String(g['name']),
      count: num(g, 'count'),
      sumNs: num(g, 'sumNs'),
      avgNs: num(g, 'avgNs'),
      minNs: num(g, 'minNs'),
      maxNs: num(g, 'maxNs'),
    })),
  };
}

function flowOp(value: unknown): ServerFlowOp {
  const o = asObject(value, 'flow end');
  return {
    track: num(o, 'track'),
    startNs: num(o, 'startNs'),
    endNs: num(o, 'endNs'),
    kind: num(o, 'kind'),
    nameId: num(o, 'nameId'),
    correlationId: num(o, 'correlationId'),
  };
}

/** The flows of the op that starts at `startNs` on `track`, over the whole trace. */
export async function getServerFlows(
  id: string,
  track: number,
  startNs: number,
): Promise<ServerFlow[]> {
  const params = new URLSearchParams({ track: String(track), startNs: String(startNs) });
  const value = asObject(await getJson(`${base(id)}/flows?${params.toString()}`), 'flows answer');
  return objectsAt(value, 'flows').map((f) => ({
    kind: num(f, 'kind'),
    from: flowOp(f['from']),
    to: flowOp(f['to']),
  }));
}

/** Per track, how many matches of a name search start in each of `buckets` buckets of the span. */
export async function getServerSearchMarks(
  id: string,
  query: string,
  regex: boolean,
  buckets: number,
): Promise<ServerSearchMarks> {
  const params = new URLSearchParams({ q: query, buckets: String(buckets) });
  if (regex) {
    params.set('regex', '1');
  }
  const value = asObject(
    await getJson(`${base(id)}/search/marks?${params.toString()}`),
    'search marks answer',
  );
  return {
    count: num(value, 'count'),
    bucketNs: num(value, 'bucketNs'),
    tracks: objectsAt(value, 'tracks').map((t) => ({
      track: num(t, 'track'),
      buckets: numbersAt(t, 'buckets'),
      counts: numbersAt(t, 'counts'),
    })),
  };
}

/** Op `index` of the whole stored trace (a finding names ops by these indices). */
export async function getServerOpAt(id: string, index: number): Promise<ServerOp> {
  return serverOp(await getJson(`${base(id)}/ops/${index}`));
}

/** What each track's host ranges hold over the whole stored trace (labels its range rows). */
export async function getServerRangeLanes(id: string): Promise<RangeLaneSummary[]> {
  const value = asObject(await getJson(`${base(id)}/range-lanes`), 'range lanes answer');
  return objectsAt(value, 'tracks').map((t) => {
    const domains = t['domains'];
    if (!Array.isArray(domains) || !domains.every((d): d is string => typeof d === 'string')) {
      throw new Error(`the server's range lanes of track ${num(t, 'track')} lack 'domains'`);
    }
    return {
      track: num(t, 'track'),
      depth: num(t, 'depth'),
      count: num(t, 'count'),
      domains,
    };
  });
}
