import { defaultAnalysisOptions } from '@streamscope/analysis';
import { formatDurationNs, trackLabels } from '@streamscope/trace';
import { getTrace } from '../data/trace-registry.ts';
import { opDetails } from '../lib/op-details.ts';
import { useApp } from '../store/use-app.ts';

/**
 * Name, kind, stream, start, duration, bytes and bandwidth, grid and block of the hovered op; over
 * the label column, the whole of a row label the gutter cut short.
 */
export function HoverTooltip() {
  return (
    <>
      <OpTooltip />
      <RowLabelTooltip />
      <LaneTooltip />
    </>
  );
}

/** The queue depth under the pointer (with the capacity), or the range that launched the ops. */
function LaneTooltip() {
  const traceId = useApp((s) => s.traceId);
  const hovered = useApp((s) => s.hoveredLane);
  const trace = getTrace(traceId);
  if (hovered === null || trace === undefined) {
    return null;
  }
  const stream = trackLabels(trace.tracks)[hovered.track] ?? '';
  const capacity = defaultAnalysisOptions.launchQueueCapacity;
  const range = trace.ranges.columns();
  return (
    <div
      className="tooltip"
      data-testid="lane-tooltip"
      style={{ left: hovered.clientX + 14, top: hovered.clientY + 14 }}
    >
      {hovered.kind === 'queue' ? (
        <>
          <div className="tooltip-name" data-testid="lane-tooltip-value">
            queue depth {hovered.value} of {capacity}
          </div>
          <div>
            {stream} · at {formatDurationNs(hovered.timeNs)}
          </div>
        </>
      ) : (
        <>
          <div className="tooltip-name" data-testid="lane-tooltip-value">
            {trace.strings.get(range.nameId[hovered.value] ?? 0)}
          </div>
          <div>launched the ops on {stream} here</div>
        </>
      )}
    </div>
  );
}

function RowLabelTooltip() {
  const hovered = useApp((s) => s.hoveredLabel);
  if (hovered === null) {
    return null;
  }
  return (
    <div
      className="tooltip"
      data-testid="label-tooltip"
      style={{ left: hovered.clientX + 14, top: hovered.clientY + 14 }}
    >
      <div className="tooltip-name">{hovered.text}</div>
    </div>
  );
}

function OpTooltip() {
  const traceId = useApp((s) => s.traceId);
  const hovered = useApp((s) => s.hoveredOp);
  const trace = getTrace(traceId);
  const d = trace === undefined || hovered === null ? null : opDetails(trace, hovered.op, false);
  if (d === null || hovered === null) {
    return null;
  }
  // Keep the tooltip on screen: flip to the left of the pointer near the right edge.
  const left =
    hovered.clientX + 260 > window.innerWidth ? hovered.clientX - 260 : hovered.clientX + 14;
  return (
    <div className="tooltip" data-testid="tooltip" style={{ left, top: hovered.clientY + 14 }}>
      <div className="tooltip-name">{d.name}</div>
      <div>
        {d.kind} · {d.track}
      </div>
      <div>
        start {formatDurationNs(d.startNs)} · {formatDurationNs(d.durNs)}
      </div>
      {d.bytesLabel !== null && (
        <div>
          {d.sizeKnown ? `${d.bytesLabel} · ${d.bandwidthLabel}` : 'size and bandwidth unknown'}
        </div>
      )}
      {d.grid !== null && (
        <div>
          grid {d.grid} · block {d.block}
        </div>
      )}
    </div>
  );
}
