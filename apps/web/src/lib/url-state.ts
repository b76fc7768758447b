import type { Route } from '../store/route.ts';

/**
 * Routes live in the URL hash so any static server can serve the app and a copied link reopens
 * the same page: `#/trace/<id>?t=<startNs>,<endNs>&op=<index>&pin=<tracks>&hide=<tracks>&fold=<group keys>&lanes=launch,queue`, `#/compare?a=<id>&b=<id>`.
 */
export function routeFromHash(hash: string): Route {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  const [pathPart = '', queryPart = ''] = raw.split('?', 2);
  const segments = pathPart.split('/').filter((s) => s !== '');
  const query = new URLSearchParams(queryPart);
  const first = segments[0];
  if (first === 'run') {
    return { page: 'run' };
  }
  if (first === 'lessons') {
    return segments[1] === undefined
      ? { page: 'lessons' }
      : { page: 'lessons', lessonId: decodeURIComponent(segments[1]) };
  }
  if (first === 'import') {
    return { page: 'import' };
  }
  if (first === 'compare') {
    const a = query.get('a');
    const b = query.get('b');
    if (a !== null && b !== null && a !== '' && b !== '') {
      return { page: 'compare', traceA: a, traceB: b };
    }
    return { page: 'traces' };
  }
  if (first === 'trace' && segments[1] !== undefined) {
    const traceId = decodeURIComponent(segments[1]);
    const view = parseView(query.get('t'));
    const op = parseIndex(query.get('op'));
    const pinned = parseIndexList(query.get('pin'));
    const hidden = parseIndexList(query.get('hide'));
    const collapsed = parseKeyList(query.get('fold'));
    const lanes = (query.get('lanes') ?? '')
      .split(',')
      .filter((l): l is 'launch' | 'queue' => l === 'launch' || l === 'queue');
    return {
      page: 'trace',
      traceId,
      ...(view === undefined ? {} : { view }),
      ...(op === undefined ? {} : { selectedOp: op }),
      ...(pinned.length === 0 ? {} : { pinned }),
      ...(hidden.length === 0 ? {} : { hidden }),
      ...(collapsed.length === 0 ? {} : { collapsed }),
      ...(lanes.length === 0 ? {} : { lanes: [...new Set(lanes)].sort() }),
    };
  }
  return { page: 'traces' };
}

function parseView(value: string | null): { startNs: number; endNs: number } | undefined {
  if (value === null) {
    return undefined;
  }
  const parts = value.split(',').map(Number);
  const [startNs, endNs] = parts;
  if (parts.length !== 2 || startNs === undefined || endNs === undefined) {
    return undefined;
  }
  if (!Number.isFinite(startNs) || !Number.isFinite(endNs) || endNs <= startNs) {
    return undefined;
  }
  return { startNs, endNs };
}

/** "3,1,7": track indices in order, without repeats; anything else in the list is dropped. */
function parseIndexList(value: string | null): number[] {
  const out: number[] = [];
  for (const part of (value ?? '').split(',')) {
    const index = parseIndex(part);
    if (index !== undefined && !out.includes(index)) {
      out.push(index);
    }
  }
  return out;
}

/** "d1.0,n4": row-group keys (letters, digits, dots and minus signs only). */
function parseKeyList(value: string | null): string[] {
  const out: string[] = [];
  for (const part of (value ?? '').split(',')) {
    if (/^[a-z]-?[\d.]+$/.test(part) && !out.includes(part)) {
      out.push(part);
    }
  }
  return out;
}

function parseIndex(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value)) {
    return undefined;
  }
  return Number(value);
}

export function hashFromRoute(route: Route): string {
  switch (route.page) {
    case 'traces':
      return '#/';
    case 'run':
      return '#/run';
    case 'lessons':
      return route.lessonId === undefined
        ? '#/lessons'
        : `#/lessons/${encodeURIComponent(route.lessonId)}`;
    case 'import':
      return '#/import';
    case 'compare':
      return `#/compare?a=${encodeURIComponent(route.traceA)}&b=${encodeURIComponent(route.traceB)}`;
    case 'trace': {
      const query: string[] = [];
      if (route.view !== undefined) {
        // Whole ns are enough for a link and keep it short.
        query.push(`t=${Math.round(route.view.startNs)},${Math.round(route.view.endNs)}`);
      }
      if (route.selectedOp !== undefined) {
        query.push(`op=${route.selectedOp}`);
      }
      if (route.pinned !== undefined && route.pinned.length > 0) {
        query.push(`pin=${route.pinned.join(',')}`);
      }
      if (route.hidden !== undefined && route.hidden.length > 0) {
        query.push(`hide=${route.hidden.join(',')}`);
      }
      if (route.collapsed !== undefined && route.collapsed.length > 0) {
        query.push(`fold=${route.collapsed.join(',')}`);
      }
      if (route.lanes !== undefined && route.lanes.length > 0) {
        query.push(`lanes=${route.lanes.join(',')}`);
      }
      const tail = query.length > 0 ? `?${query.join('&')}` : '';
      return `#/trace/${encodeURIComponent(route.traceId)}${tail}`;
    }
  }
}
