// Traces opened in this browser only get ids the server never hands out (its ids have no ':'),
// so the trace view can tell them apart and never asks the server for them.
const localPrefix = 'local:';
let nextLocal = 1;

export function newLocalTraceId(): string {
  return `${localPrefix}${nextLocal++}`;
}

export function isLocalTraceId(traceId: string): boolean {
  return traceId.startsWith(localPrefix);
}
