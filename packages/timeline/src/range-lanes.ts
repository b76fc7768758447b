import type { RangeLaneSummary, Trace } from '@streamscope/trace';
import { rangeLaneSummaries } from '@streamscope/trace';
import { rangeSourceOf } from './group-keys.ts';

/**
 * Per track (by index): lanes stacked (0: no ranges), range count and the lane row's label.
 * A tiled view makes them from the server's summaries of the whole trace, the normal view from
 * its own trace, with the one labelling function `rangeLanesOf`.
 */
export interface RangeLanes {
  readonly depths: Uint8Array;
  readonly counts: Uint32Array;
  readonly labels: readonly string[];
}

/**
 * Lanes of `trackCount` tracks from their summaries: a row of `depth` lanes labelled by what it
 * holds, "NVTX", "CPU ops", "User annotations", or several joined ("CPU ops + user annotations");
 * a Chrome trace's (`sourceFormat`) own categories where they are none of those.
 */
export function rangeLanesOf(
  trackCount: number,
  summaries: readonly RangeLaneSummary[],
  sourceFormat = '',
): RangeLanes {
  const depths = new Uint8Array(trackCount);
  const counts = new Uint32Array(trackCount);
  const none = sourceFormat === 'chrome-trace' ? 'Ranges' : 'NVTX';
  const labels: string[] = new Array<string>(trackCount).fill(none);
  for (const s of summaries) {
    if (s.track < 0 || s.track >= trackCount) {
      continue;
    }
    depths[s.track] = Math.min(255, s.depth);
    counts[s.track] = s.count;
    const sources: string[] = [];
    for (const domain of s.domains) {
      const source = rangeSourceOf(domain, sourceFormat);
      if (!sources.includes(source)) {
        sources.push(source);
      }
    }
    const label = sources.length === 0 ? none : sources.join(' + ');
    labels[s.track] = label.charAt(0).toUpperCase() + label.slice(1);
  }
  return { depths, counts, labels };
}

/** The range lanes of a trace held whole (the normal view). */
export function traceRangeLanes(trace: Trace): RangeLanes {
  return rangeLanesOf(trace.tracks.length, rangeLaneSummaries(trace), trace.meta.sourceFormat);
}
