import type { RangeColumns } from './side-tables.ts';
import type { Trace } from './trace.ts';

/**
 * What the ranges of one track hold, over the whole trace: what labels and sizes the timeline's
 * range lane row. A viewer that holds a window of a big trace's ranges gets these from the
 * server, which summarises the whole stored trace with the same function.
 */
export interface RangeLaneSummary {
  readonly track: number;
  /** Deepest nesting + 1: the lanes the row stacks. */
  readonly depth: number;
  readonly count: number;
  /** The ranges' domain names, in order of their first range. */
  readonly domains: readonly string[];
}

/** The summary of every track that has ranges, in one pass over the ranges. */
export function rangeLaneSummaries(trace: Trace): RangeLaneSummary[] {
  return rangeLaneSummariesOf(trace, [trace.ranges.columns()]);
}

/**
 * The same over ranges that come in pieces (a stored trace's range batches, read without its
 * ops): `trace` gives the tracks and strings.
 */
export function rangeLaneSummariesOf(
  trace: Trace,
  pieces: Iterable<RangeColumns>,
): RangeLaneSummary[] {
  const byTrack = new Map<number, { depth: number; count: number; domains: string[] }>();
  const domainName = new Map<number, string>();
  for (const ranges of pieces) {
    for (let i = 0; i < ranges.count; i++) {
      const track = ranges.track[i]!;
      if (track >= trace.tracks.length) {
        continue;
      }
      let own = byTrack.get(track);
      if (own === undefined) {
        own = { depth: 0, count: 0, domains: [] };
        byTrack.set(track, own);
      }
      own.count++;
      own.depth = Math.max(own.depth, ranges.depth[i]! + 1);
      const domainId = ranges.domainId[i]!;
      let name = domainName.get(domainId);
      if (name === undefined) {
        name = domainId === 0 ? '' : trace.strings.get(domainId);
        domainName.set(domainId, name);
      }
      if (!own.domains.includes(name)) {
        own.domains.push(name);
      }
    }
  }
  return [...byTrack].map(([track, own]) => ({ track, ...own }));
}
