import { formatDurationNs } from '@streamscope/trace';
import { getAnalysisFor, getTrace } from '../data/trace-registry.ts';
import { gapDetails } from '../lib/gap-details.ts';
import { useApp } from '../store/use-app.ts';

/** The shaded gap under the pointer: its cause, duration and what the stream waited for. */
export function GapTooltip() {
  const traceId = useApp((s) => s.traceId);
  const hovered = useApp((s) => s.hoveredGap);
  const trace = getTrace(traceId);
  const analysis = getAnalysisFor(traceId);
  const d =
    trace === undefined || analysis === undefined || hovered === null
      ? null
      : gapDetails(trace, analysis.gaps, hovered.gap);
  if (d === null || hovered === null) {
    return null;
  }
  const left =
    hovered.clientX + 300 > window.innerWidth ? hovered.clientX - 300 : hovered.clientX + 14;
  return (
    <div className="tooltip" data-testid="gap-tooltip" style={{ left, top: hovered.clientY + 14 }}>
      <div className="tooltip-name">{d.label}</div>
      <div>
        {formatDurationNs(d.durNs)} idle on {d.track}
      </div>
      {d.waitedFor !== null && (
        <div>
          {d.relation} {d.waitedFor.name} ({d.waitedFor.track})
        </div>
      )}
      {d.detail !== '' && <div className="small">{d.detail}</div>}
    </div>
  );
}
