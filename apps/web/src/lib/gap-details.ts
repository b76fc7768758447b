import type { Trace } from '@streamscope/trace';
import { trackLabels } from '@streamscope/trace';
import { gapLegend } from '@streamscope/timeline';
import type { GapItem } from '../api/types.ts';
import { drawnGaps, gapCauseOf } from './gap-table.ts';

/** What the tooltip and the details panel say about one shaded gap. */
export interface GapDetails {
  /** The legend's name of its shading ("Gap: event wait"). */
  readonly label: string;
  /** Analysis' cause id ("event-wait", "host-sync", …). */
  readonly cause: string;
  readonly track: string;
  readonly startNs: number;
  readonly durNs: number;
  /** Analysis' sentence, with the trace's names and numbers. */
  readonly detail: string;
  /**
   * How the named op relates to the gap: what the stream waited for, or (launch latency and
   * unknown gaps, where analysis names only the launch call) the call that launched the next op.
   */
  readonly relation: 'waited for' | 'launched by';
  /** The op the stream waited for (or that launched the next op), when analysis names one. */
  readonly waitedFor: { readonly op: number; readonly name: string; readonly track: string } | null;
}

/** Details of drawn gap `index` (gap-table.ts order), or null when there is no such gap. */
export function gapDetails(
  trace: Trace,
  gaps: readonly GapItem[],
  index: number,
): GapDetails | null {
  const gap = drawnGaps(gaps)[index];
  if (gap === undefined) {
    return null;
  }
  const labels = trackLabels(trace.tracks);
  const ops = trace.ops.columns();
  const op = gap.causeOp;
  return {
    label: gapLegend[gapCauseOf(gap.cause)]?.label ?? 'Gap',
    cause: gap.cause,
    track: labels[gap.track] ?? `track ${gap.track}`,
    startNs: gap.fromNs,
    durNs: gap.toNs - gap.fromNs,
    detail: gap.detail,
    // An unknown gap did not wait for its launch call: saying so beside "cause unknown" contradicts it.
    relation:
      gap.cause === 'unknown' || gap.cause === 'launch-latency' ? 'launched by' : 'waited for',
    waitedFor:
      op >= 0 && op < ops.count
        ? {
            op,
            name: trace.strings.get(ops.nameId[op]!),
            track: labels[ops.track[op]!] ?? `track ${ops.track[op]}`,
          }
        : null,
  };
}
