/** Search matches (op indices in start order) for the trace on screen; too big for the store. */
let matches: Uint32Array = new Uint32Array(0);
let matchesTraceId: string | null = null;

export function setSearchMatches(traceId: string | null, found: Uint32Array): void {
  matches = found;
  matchesTraceId = traceId;
}

export function getSearchMatches(traceId: string | null): Uint32Array {
  return traceId === matchesTraceId ? matches : new Uint32Array(0);
}
