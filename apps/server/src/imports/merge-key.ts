import { createHash } from 'node:crypto';
import type { TraceEntry } from '../api-types.ts';

/**
 * What makes two merges (POST /api/imports/merge) the same, so the second answers the first's
 * trace instead of storing another: the same inputs, in any order, and the same title asked for
 * (no title is a title of its own; another title is another merge, since the stored trace
 * carries its title). Returns SHA-256 (hex) of that, kept in the merged entry as `mergeKey`.
 *
 * An input counts by what it holds, not its id: an upload by its bytes (`contentSha256`), so a
 * rank file uploaded again under a new id is the same input; a merged trace by its own key;
 * anything else (a run) by its id. Order is left out because the merged trace lays its groups
 * out by rank: the same files given in another order show the same timeline (only a default
 * title, which lists the file names, would list them in the other order).
 */
export function mergeKeyOf(inputs: readonly TraceEntry[], title: string | undefined): string {
  const identities = inputs.map(inputIdentity).sort();
  return createHash('sha256')
    .update(JSON.stringify({ inputs: identities, title: title ?? null }))
    .digest('hex');
}

function inputIdentity(entry: TraceEntry): string {
  if (entry.contentSha256 !== undefined) {
    return `bytes:${entry.contentSha256}`;
  }
  if (entry.mergeKey !== undefined) {
    return `merge:${entry.mergeKey}`;
  }
  return `trace:${entry.id}`;
}
