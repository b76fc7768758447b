import type { SearchBuckets } from '@streamscope/timeline';
import { searchBuckets } from '@streamscope/timeline';
import { appStore } from '../store/index.ts';
import type { ServerOp } from './tile-api.ts';
import { searchServer } from './tile-api.ts';
import { getServerSearchMarks } from './tile-queries.ts';
import { selectWhenLoaded } from './tiled-loader.ts';
import { showTarget } from './show-window.ts';

/** Matches fetched per request. */
const pageSize = 200;
/** Buckets the trace's span is split into for the canvas's search marks (a few per px). */
const markBuckets = 4096;

/** Where the current tiled search's matches are, per track and bucket (the canvas marks them). */
let marks: { traceId: string; buckets: SearchBuckets } | undefined;

export function getTiledSearchBuckets(traceId: string | null): SearchBuckets | undefined {
  return marks?.traceId === traceId ? marks.buckets : undefined;
}

/**
 * Search in tiled mode, answered by the server over the whole trace: the count, and matches in
 * time order fetched a page at a time as the user steps through them. `known` holds the matches
 * of indices [first, first + known.length) of the whole ordered list.
 */
let session:
  { traceId: string; query: string; regex: boolean; first: number; known: ServerOp[] } | undefined;
/** The search in flight: a step waits for it, so Enter right after typing visits its first match. */
let running: Promise<void> | undefined;
let runningKey = '';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Counts the matches of `query` (a regular expression when `regex`); visits the first if asked. */
export function runTiledSearch(
  traceId: string,
  query: string,
  regex = false,
  visitFirst = true,
): Promise<void> {
  // The same search already in flight (typing paused after Enter): let it answer once.
  const key = JSON.stringify([traceId, query, regex]);
  if (running !== undefined && key === runningKey) {
    return visitFirst ? running.then(() => moveBy(traceId, 1)) : running;
  }
  runningKey = key;
  const search = searchWhole(traceId, query, regex, visitFirst).finally(() => {
    if (running === search) {
      running = undefined;
      runningKey = '';
    }
  });
  running = search;
  return search;
}

async function searchWhole(
  traceId: string,
  query: string,
  regex: boolean,
  visitFirst: boolean,
): Promise<void> {
  const state = appStore.getState();
  if (query.trim() === '') {
    session = undefined;
    marks = undefined;
    state.setSearchResult(query, 0, regex);
    return;
  }
  try {
    const [answer, where] = await Promise.all([
      searchServer(traceId, query, undefined, 'next', pageSize, regex),
      getServerSearchMarks(traceId, query, regex, markBuckets),
    ]);
    session = { traceId, query, regex, first: 0, known: [...answer.matches] };
    marks = { traceId, buckets: searchBuckets(where.bucketNs, where.tracks) };
    appStore.getState().setSearchResult(query, answer.count, regex);
    if (visitFirst && answer.count > 0) {
      await moveBy(traceId, 1);
    }
  } catch (error) {
    session = undefined;
    marks = undefined;
    appStore.getState().setSearchResult(query, 0, regex, messageOf(error));
  }
}

/** Moves to the next (+1) or previous (-1) match, wrapping, fetching the page it is on. */
export async function stepTiledSearch(traceId: string, delta: 1 | -1): Promise<void> {
  await running;
  await moveBy(traceId, delta);
}

async function moveBy(traceId: string, delta: 1 | -1): Promise<void> {
  const state = appStore.getState();
  if (session?.traceId !== traceId || state.searchMatchCount === 0) {
    return;
  }
  state.stepSearch(delta);
  const index = appStore.getState().searchMatchIndex;
  const s = session;
  try {
    if (index < s.first || index >= s.first + s.known.length) {
      await fetchAround(s, index, appStore.getState().searchMatchCount);
    }
    const match = s.known[index - s.first];
    if (match !== undefined) {
      goTo(traceId, match);
    }
  } catch (error) {
    appStore.getState().notify('error', `search failed: ${messageOf(error)}`);
  }
}

/** Loads the page holding match `index`: after the known ones, before them, or the last page. */
async function fetchAround(
  s: NonNullable<typeof session>,
  index: number,
  count: number,
): Promise<void> {
  const last = s.known.at(-1);
  const firstKnown = s.known[0];
  if (index === s.first + s.known.length && last !== undefined) {
    // Ops that start at the same ns as the last known one come again: skip those already known.
    const answer = await searchServer(s.traceId, s.query, last.startNs, 'next', pageSize, s.regex);
    const seen = new Set(s.known.filter((m) => m.startNs === last.startNs).map((m) => m.op));
    const fresh = answer.matches.filter((m) => !seen.has(m.op));
    s.first += s.known.length;
    s.known = fresh;
  } else if (index === s.first - 1 && firstKnown !== undefined) {
    const answer = await searchServer(
      s.traceId,
      s.query,
      firstKnown.startNs,
      'previous',
      pageSize,
      s.regex,
    );
    s.first -= answer.matches.length;
    s.known = [...answer.matches];
  } else if (index === count - 1) {
    const answer = await searchServer(
      s.traceId,
      s.query,
      Number.MAX_VALUE,
      'previous',
      pageSize,
      s.regex,
    );
    s.first = count - answer.matches.length;
    s.known = [...answer.matches];
  } else {
    const answer = await searchServer(s.traceId, s.query, undefined, 'next', pageSize, s.regex);
    s.first = 0;
    s.known = [...answer.matches];
  }
}

function goTo(traceId: string, match: ServerOp): void {
  // As a match of the normal view (zoomToOp): the zoom kept where it shows the match readable.
  const state = appStore.getState();
  showTarget(
    {
      fromNs: match.startNs,
      toNs: match.endNs,
      currentStartNs: match.startNs,
      currentEndNs: match.endNs,
    },
    state.viewEndNs > state.viewStartNs
      ? { startNs: state.viewStartNs, endNs: state.viewEndNs }
      : undefined,
  );
  selectWhenLoaded(traceId, match.track, match.startNs);
}
