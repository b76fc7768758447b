import type { Trace } from '@streamscope/trace';

/** What a search found: op indices in start order, or why the query could not run. */
export type SearchOutcome =
  { readonly ok: true; readonly ops: Uint32Array } | { readonly ok: false; readonly error: string };

/**
 * A name test for `query`: a case-insensitive substring, or a case-insensitive regular
 * expression when `regex` is set. An invalid expression gives its error instead of throwing.
 */
function nameMatcher(
  query: string,
  regex: boolean,
):
  | { readonly ok: true; readonly test: (name: string) => boolean }
  | { readonly ok: false; readonly error: string } {
  if (!regex) {
    const needle = query.trim().toLowerCase();
    return { ok: true, test: (name) => name.toLowerCase().includes(needle) };
  }
  try {
    const pattern = new RegExp(query, 'i');
    return { ok: true, test: (name) => pattern.test(name) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { ok: false, error: `not a regular expression: ${message}` };
  }
}

/**
 * Ops whose name matches `query` over the whole trace, ordered by start time. Strings are
 * matched once per distinct name, then ops by nameId: O(names + ops). A blank query finds nothing.
 */
export function searchTrace(trace: Trace, query: string, regex = false): SearchOutcome {
  if (query.trim() === '') {
    return { ok: true, ops: new Uint32Array(0) };
  }
  const matcher = nameMatcher(query, regex);
  if (!matcher.ok) {
    return matcher;
  }
  const nameCount = trace.strings.count;
  const nameMatches = new Uint8Array(nameCount);
  let anyName = false;
  for (let id = 0; id < nameCount; id++) {
    if (matcher.test(trace.strings.get(id))) {
      nameMatches[id] = 1;
      anyName = true;
    }
  }
  if (!anyName) {
    return { ok: true, ops: new Uint32Array(0) };
  }
  const ops = trace.ops.columns();
  let found = 0;
  for (let i = 0; i < ops.count; i++) {
    if (nameMatches[ops.nameId[i]!] === 1) {
      found++;
    }
  }
  const result = new Uint32Array(found);
  let k = 0;
  for (let i = 0; i < ops.count; i++) {
    if (nameMatches[ops.nameId[i]!] === 1) {
      result[k++] = i;
    }
  }
  const starts = ops.startNs;
  return { ok: true, ops: result.sort((a, b) => starts[a]! - starts[b]! || a - b) };
}

/** "3 of 12" for the current match, "12 matches" before one is visited, or "no matches". */
export function searchCountLabel(index: number, count: number): string {
  if (count === 0) {
    return 'no matches';
  }
  if (index < 0) {
    return count === 1 ? '1 match' : `${count.toLocaleString('en-US')} matches`;
  }
  return `${(index + 1).toLocaleString('en-US')} of ${count.toLocaleString('en-US')}`;
}

let lastWindow:
  { trace: Trace; opCount: number; key: string; ops: Uint32Array | undefined } | undefined;

/**
 * The matches of `query` among the ops of `trace` (a tiled view's window), kept until the window,
 * its op count or the query change: a selection or a redraw does not search again. None for a
 * blank query; undefined for an invalid one.
 */
export function windowMatches(
  trace: Trace,
  query: string,
  regex: boolean,
): Uint32Array | undefined {
  const key = JSON.stringify([query, regex]);
  if (
    lastWindow?.trace !== trace ||
    lastWindow.opCount !== trace.ops.count ||
    lastWindow.key !== key
  ) {
    const outcome = searchTrace(trace, query, regex);
    lastWindow = {
      trace,
      opCount: trace.ops.count,
      key,
      ops: outcome.ok ? outcome.ops : undefined,
    };
  }
  return lastWindow.ops;
}
