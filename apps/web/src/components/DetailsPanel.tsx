import { formatDurationNs } from '@streamscope/trace';
import { getAnalysisFor, getTrace } from '../data/trace-registry.ts';
import { zoomToOp } from '../data/view-actions.ts';
import { opDetails } from '../lib/op-details.ts';
import { gapDetails } from '../lib/gap-details.ts';
import { rangeDetails } from '../lib/range-details.ts';
import { GapDetailsPanel } from './GapDetailsPanel.tsx';
import { RangeDetailsPanel } from './RangeDetailsPanel.tsx';
import { SelectionSetPanel } from './SelectionSetPanel.tsx';
import { useApp } from '../store/use-app.ts';

/** The selected op: every field we know, and its flows (click one to go there). */
export function DetailsPanel() {
  const traceId = useApp((s) => s.traceId);
  const selected = useApp((s) => s.selectedOp);
  const selectedRange = useApp((s) => s.selectedRange);
  const selectedGap = useApp((s) => s.selectedGap);
  const setSize = useApp((s) => s.opSet.length);
  useApp((s) => s.dataVersion);
  const trace = getTrace(traceId);
  if (trace !== undefined && setSize > 1) {
    return <SelectionSetPanel trace={trace} />;
  }
  const range =
    trace === undefined || selectedRange === null ? null : rangeDetails(trace, selectedRange);
  if (range !== null) {
    return <RangeDetailsPanel details={range} />;
  }
  const analysis = getAnalysisFor(traceId);
  const gap =
    trace === undefined || analysis === undefined || selectedGap === null
      ? null
      : gapDetails(trace, analysis.gaps, selectedGap);
  if (gap !== null) {
    return <GapDetailsPanel details={gap} />;
  }
  const details = trace === undefined || selected === null ? null : opDetails(trace, selected);
  if (details === null) {
    return (
      <div className="panel" data-testid="details-panel">
        <p className="muted">
          Click an op to see its details and flows; Ctrl/Cmd-click adds ops to the selection.
          Shift-drag selects an area.
        </p>
      </div>
    );
  }
  return (
    <div className="panel" data-testid="details-panel">
      <h3 data-testid="details-name">{details.name}</h3>
      <dl className="kv">
        <dt>Kind</dt>
        <dd data-testid="details-kind">{details.kind}</dd>
        <dt>{details.trackHeading}</dt>
        <dd data-testid="details-track">{details.track}</dd>
        <dt>Start</dt>
        <dd>{formatDurationNs(details.startNs)}</dd>
        <dt>Duration</dt>
        <dd data-testid="details-duration">{formatDurationNs(details.durNs)}</dd>
        {details.bytesLabel !== null && (
          <>
            <dt>Bytes</dt>
            <dd data-testid="details-bytes">{details.bytesLabel}</dd>
            <dt>Bandwidth</dt>
            <dd data-testid="details-bandwidth">{details.bandwidthLabel}</dd>
          </>
        )}
        {details.memory !== null && (
          <>
            <dt>Memory</dt>
            <dd>{details.memory}</dd>
          </>
        )}
        {details.grid !== null && (
          <>
            <dt>Grid</dt>
            <dd>{details.grid}</dd>
            <dt>Block</dt>
            <dd>{details.block}</dd>
          </>
        )}
        {details.correlationId !== 0 && (
          <>
            <dt>Correlation</dt>
            <dd>{details.correlationId}</dd>
          </>
        )}
      </dl>
      <h4>Flows</h4>
      {details.flows.length === 0 ? (
        <p className="muted small" data-testid="details-no-flows">
          No flows touch this op.
        </p>
      ) : (
        <ul className="flows" data-testid="details-flows">
          {details.flows.map((f, i) => (
            <li key={i}>
              <button type="button" className="link" onClick={() => zoomToOp(f.op)}>
                {f.direction === 'from' ? '← from' : '→ to'} {f.name}
              </button>{' '}
              <span className="muted small">
                {f.kind}, {f.track}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
