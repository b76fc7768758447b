import type { OpRow, TileFile } from './tile-file.ts';

// Name search of a tiles file: the postings (per name, the row positions of its ops in start
// order) give the count at once and the first matches from any time in a few reads.

export interface SearchAnswer {
  /** Matches in the whole trace. */
  readonly count: number;
  /** Up to `limit` matches in time order: the first ones from `fromNs` on (next) or before it (previous). */
  readonly matches: readonly OpRow[];
}

/**
 * Ops whose name id is in `nameIds`: how many in all, and up to `limit` in time order from
 * `fromNs` on (`next`), or the last `limit` that start before `fromNs` (`previous`).
 */
export async function searchTiles(
  file: TileFile,
  nameIds: readonly number[],
  fromNs: number,
  direction: 'next' | 'previous',
  limit: number,
): Promise<SearchAnswer> {
  let count = 0;
  const heads: { id: number; at: number; end: number }[] = [];
  for (const id of nameIds) {
    const n = file.postingCount(id);
    count += n;
    const at = await firstStartingAt(file, id, n, fromNs);
    heads.push(
      direction === 'next' ? { id, at, end: n } : { id, at: Math.max(0, at - limit), end: at },
    );
  }
  // Each list gives at most `limit` candidates; merging them by start keeps the time order.
  const candidates: OpRow[] = [];
  for (const head of heads) {
    const take = Math.min(limit, head.end - head.at);
    if (take <= 0) {
      continue;
    }
    const positions = await file.postingsAt(head.id, head.at, take);
    for (let k = 0; k < take; k++) {
      candidates.push(await file.opAt(positions[k]!));
    }
  }
  candidates.sort((a, b) => a.startNs - b.startNs || a.op - b.op);
  const matches =
    direction === 'next'
      ? candidates.slice(0, limit)
      : candidates.slice(Math.max(0, candidates.length - limit));
  return { count, matches };
}

/** First place in name `id`'s posting list (of `n`) whose op starts at or after `fromNs`. */
async function firstStartingAt(
  file: TileFile,
  id: number,
  n: number,
  fromNs: number,
): Promise<number> {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const [startNs] = await file.postingStartsAt(id, mid, 1);
    if (startNs! < fromNs) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
