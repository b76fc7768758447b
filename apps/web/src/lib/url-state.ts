import type { Route } from '../store/route.ts';

/**
 * Routes live in the URL hash so any static server can serve the app and a copied link reopens
 * the same page: `#/trace/<id>?t=<startNs>,<endNs>&op=<index>`, `#/compare?a=<id>&b=<id>`.
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
    return {
      page: 'trace',
      traceId,
      ...(view === undefined ? {} : { view }),
      ...(op === undefined ? {} : { selectedOp: op }),
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
      const tail = query.length > 0 ? `?${query.join('&')}` : '';
      return `#/trace/${encodeURIComponent(route.traceId)}${tail}`;
    }
  }
}
