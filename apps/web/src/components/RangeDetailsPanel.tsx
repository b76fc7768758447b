import { formatDurationNs } from '@streamscope/trace';
import type { RangeDetails } from '../lib/range-details.ts';

/** Every field of a selected NVTX, CPU-op or annotation range. */
export function RangeDetailsPanel({ details }: { readonly details: RangeDetails }) {
  return (
    <div className="panel" data-testid="details-panel">
      <h3 data-testid="details-name">{details.name}</h3>
      <dl className="kv">
        <dt>Kind</dt>
        <dd data-testid="details-kind">
          {details.source} range ({details.kind})
        </dd>
        <dt>Thread</dt>
        <dd>{details.track}</dd>
        <dt>Start</dt>
        <dd>{formatDurationNs(details.startNs)}</dd>
        <dt>Duration</dt>
        <dd data-testid="details-duration">{formatDurationNs(details.durNs)}</dd>
        <dt>Depth</dt>
        <dd data-testid="details-depth">{details.depth}</dd>
        <dt>Domain</dt>
        <dd data-testid="details-domain">{details.domain}</dd>
      </dl>
    </div>
  );
}
