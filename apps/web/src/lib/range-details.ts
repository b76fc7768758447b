import type { Trace } from '@streamscope/trace';
import { RangeKind, trackLabels } from '@streamscope/trace';
import { rangeSourceOf } from '@streamscope/timeline';

/** What the tooltip and the details panel show for one NVTX, CPU-op or annotation range. */
export interface RangeDetails {
  readonly range: number;
  readonly name: string;
  /** 'NVTX', 'CPU ops', 'user annotations' or 'Python': what kind of range it is. */
  readonly source: string;
  /** The NVTX domain or the profiler's category; 'default' for NVTX's default domain. */
  readonly domain: string;
  /** Nesting depth on its thread, 0 = outermost. */
  readonly depth: number;
  readonly kind: 'push/pop' | 'start/end' | 'mark';
  readonly track: string;
  readonly startNs: number;
  readonly durNs: number;
}

/** The details of range `range`, or null when the trace has no such range. */
export function rangeDetails(trace: Trace, range: number): RangeDetails | null {
  const ranges = trace.ranges.columns();
  if (!Number.isInteger(range) || range < 0 || range >= ranges.count) {
    return null;
  }
  const domainId = ranges.domainId[range]!;
  const domain = domainId === 0 ? '' : trace.strings.get(domainId);
  const kind = ranges.kind[range]!;
  const startNs = ranges.startNs[range]!;
  return {
    range,
    name: trace.strings.get(ranges.nameId[range]!),
    source: rangeSourceOf(domain, trace.meta.sourceFormat),
    domain: domain === '' ? 'default' : domain,
    depth: ranges.depth[range]!,
    kind:
      kind === RangeKind.PushPop ? 'push/pop' : kind === RangeKind.StartEnd ? 'start/end' : 'mark',
    track: trackLabels(trace.tracks)[ranges.track[range]!] ?? `track ${ranges.track[range]}`,
    startNs,
    durNs: ranges.endNs[range]! - startNs,
  };
}
