import { formatDurationNs } from '@streamscope/trace';
import { zoomToOp } from '../data/view-actions.ts';
import type { GapDetails } from '../lib/gap-details.ts';

/** A selected gap: its cause, span, analysis' explanation and a link to what it waited for. */
export function GapDetailsPanel({ details }: { readonly details: GapDetails }) {
  return (
    <div className="panel" data-testid="details-panel">
      <h3 data-testid="details-name">{details.label}</h3>
      <dl className="kv">
        <dt>Cause</dt>
        <dd data-testid="gap-cause">{details.cause}</dd>
        <dt>Stream</dt>
        <dd>{details.track}</dd>
        <dt>Start</dt>
        <dd>{formatDurationNs(details.startNs)}</dd>
        <dt>Duration</dt>
        <dd data-testid="details-duration">{formatDurationNs(details.durNs)}</dd>
        <dt>{details.relation === 'waited for' ? 'Waited for' : 'Launched by'}</dt>
        <dd data-testid="gap-waited-for">
          {details.waitedFor === null ? (
            <span className="muted">nothing analysis can name</span>
          ) : (
            <button type="button" className="link" onClick={() => zoomToOp(details.waitedFor!.op)}>
              {details.waitedFor.name} ({details.waitedFor.track})
            </button>
          )}
        </dd>
      </dl>
      {details.detail !== '' && (
        <p className="small" data-testid="gap-detail">
          {details.detail}
        </p>
      )}
    </div>
  );
}
